import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A font face satori lays text out with (glyphs become SVG paths, so no font is needed to rasterise). */
export interface FontFace {
  name: string;
  data: Buffer;
  weight: 400 | 500 | 600 | 700 | 800;
  style: 'normal';
}

/**
 * One family name per subset: satori keeps one face per name and weight, and falls back to the
 * next family of the CSS list for a glyph the first lacks.
 */
const FAMILY_OF = { latin: 'Inter', 'latin-ext': 'Inter Ext', cyrillic: 'Inter Cyrillic' } as const;
export const FONT_FAMILY = 'Inter';
/** The CSS font-family every template sets. */
export const FONT_STACK = "Inter, 'Inter Cyrillic', 'Inter Ext'";
const WEIGHTS = [400, 600, 800] as const;
// Latin (en, es), Latin Extended (names such as Łukasz), Cyrillic (ru, uk: і ї є ґ included).
const SUBSETS = ['latin', 'latin-ext', 'cyrillic'] as const;

let cached: FontFace[] | null = null;

/**
 * Inter, shipped with the project through @fontsource/inter (WOFF; satori reads TTF, OTF and
 * WOFF, not WOFF2). Read once per process; never fetched from the network.
 */
export function fonts(): FontFace[] {
  if (cached) return cached;
  const dir = join(dirname(require.resolve('@fontsource/inter/package.json')), 'files');
  cached = WEIGHTS.flatMap((weight) =>
    SUBSETS.map((subset) => ({
      name: FAMILY_OF[subset],
      data: readFileSync(join(dir, `inter-${subset}-${weight}-normal.woff`)),
      weight,
      style: 'normal' as const,
    })),
  );
  return cached;
}
