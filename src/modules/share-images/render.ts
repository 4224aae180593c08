import { Resvg } from '@resvg/resvg-js';
import satori from 'satori';
import { FONT_FAMILY, fonts } from './fonts';

/** A satori node: the shape React elements have, built without JSX. */
export interface Node {
  type: string;
  props: Record<string, unknown> & { children?: Child | Child[] };
}
export type Child = Node | string | number | null | undefined | false;
export type Style = Record<string, string | number>;

/** Builds a node: h('div', { style }, ...children). Falsy children are dropped. */
export function h(type: string, props: Record<string, unknown> | null, ...children: Child[]): Node {
  const kept = children.filter((c) => c !== null && c !== undefined && c !== false);
  return { type, props: { ...(props ?? {}), children: kept.length === 1 ? kept[0] : kept } };
}

/** The layout as SVG, text drawn as glyph paths (the step before rasterising; tests read glyphs from it). */
export function renderSvg(node: Node, width: number, height: number): Promise<string> {
  return satori(node as never, { width, height, fonts: fonts(), embedFont: true });
}

/**
 * Renders a node to a PNG of exactly width x height: satori lays it out (flexbox, text
 * wrapping, the shipped Inter faces) into an SVG whose text is paths, resvg rasterises it.
 */
export async function renderPng(node: Node, width: number, height: number): Promise<Buffer> {
  const svg = await renderSvg(node, width, height);
  const png = new Resvg(svg, { fitTo: { mode: 'width', value: width }, font: { loadSystemFonts: false, defaultFontFamily: FONT_FAMILY } }).render().asPng();
  return Buffer.from(png);
}
