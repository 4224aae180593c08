import { FONT_STACK, h, type Node, type Style } from '../share-images';
import type { AchievementKind } from './achievements.labels';

export type CardAsset = 'og' | 'square' | 'story';
export const CARD_ASSETS: Record<string, CardAsset> = { 'og.png': 'og', 'square.png': 'square', 'story.png': 'story' };
export const CARD_SIZES: Record<CardAsset, { width: number; height: number }> = {
  og: { width: 1200, height: 630 },
  square: { width: 1080, height: 1080 },
  story: { width: 1080, height: 1920 },
};

/** What a card image shows (all text already in the reader's language). */
export interface CardView {
  kind: AchievementKind;
  label: string;
  kicker: string;
  earnedBy: string;
  campaign: string | null;
  date: string;
  host: string;
  /** An SVG data URL of the card page's QR code (square and story only). */
  qr: string | null;
  scan: string;
}

const INK = '#0f172a';
const MUTED = '#64748b';
const GREEN = '#15803d';
const PANEL = 'linear-gradient(135deg, #0f766e 0%, #15803d 55%, #65a30d 100%)';
const GOLD = 'linear-gradient(135deg, #fde68a 0%, #f59e0b 60%, #b45309 100%)';

/** Language-free words on the medal: the count or the first step it marks. */
const MEDAL: Record<AchievementKind, string> = {
  first_gift: '1',
  first_campaign_live: '1',
  first_update: '1',
  goal_reached: '100%',
  donors_10: '10',
  donors_100: '100',
};

function medal(kind: AchievementKind, size: number): Node {
  const text = MEDAL[kind];
  const inner = Math.round(size * 0.74);
  return h(
    'div',
    { style: { display: 'flex', alignItems: 'center', justifyContent: 'center', width: size, height: size, borderRadius: size, backgroundImage: GOLD, boxShadow: '0 20px 50px rgba(15,23,42,0.35)' } },
    h(
      'div',
      { style: { display: 'flex', alignItems: 'center', justifyContent: 'center', width: inner, height: inner, borderRadius: inner, backgroundColor: '#fffbeb', border: `${Math.round(size * 0.03)}px solid #fef3c7` } },
      h('div', { style: { display: 'flex', fontSize: Math.round(inner * (text.length > 2 ? 0.3 : 0.5)), fontWeight: 800, color: '#b45309', letterSpacing: -2 } }, text),
    ),
  );
}

function words(c: CardView, scale: number, width: number): Node {
  const px = (n: number) => Math.round(n * scale);
  return h(
    'div',
    { style: { display: 'flex', flexDirection: 'column', width, gap: px(18) } },
    h(
      'div',
      { style: { display: 'flex', alignSelf: 'flex-start', padding: `${px(8)}px ${px(20)}px`, borderRadius: px(40), backgroundColor: '#dcfce7', color: GREEN, fontSize: px(24), fontWeight: 600 } },
      c.kicker,
    ),
    h('div', { style: { display: 'block', fontSize: px(68), fontWeight: 800, color: INK, lineHeight: 1.08, letterSpacing: -1, lineClamp: 2 } }, c.label),
    h('div', { style: { display: 'block', fontSize: px(32), color: '#334155', fontWeight: 600, lineClamp: 1 } }, c.earnedBy),
    c.campaign ? h('div', { style: { display: 'block', fontSize: px(28), color: GREEN, lineHeight: 1.3, lineClamp: 2 } }, c.campaign) : null,
    h('div', { style: { display: 'flex', fontSize: px(24), color: MUTED } }, `${c.date} · ${c.host}`),
  );
}

function qrBlock(c: CardView, size: number, text: number): Node | null {
  if (!c.qr) return null;
  return h(
    'div',
    { style: { display: 'flex', alignItems: 'center', gap: Math.round(text * 0.8) } },
    h('img', { src: c.qr, width: size, height: size, style: { width: size, height: size, backgroundColor: '#ffffff', borderRadius: 12 } }),
    h('div', { style: { display: 'flex', fontSize: text, color: MUTED, maxWidth: 420 } }, c.scan),
  );
}

/** One template, three canvases: the link preview, the square post and the phone story. */
export function cardImage(c: CardView, asset: CardAsset): Node {
  const { width, height } = CARD_SIZES[asset];
  const root: Style = { display: 'flex', width, height, fontFamily: FONT_STACK, backgroundColor: '#ffffff' };
  if (asset === 'og') {
    return h(
      'div',
      { style: { ...root, flexDirection: 'row' } },
      h('div', { style: { display: 'flex', alignItems: 'center', justifyContent: 'center', width: 460, height, backgroundImage: PANEL } }, medal(c.kind, 300)),
      h('div', { style: { display: 'flex', alignItems: 'center', padding: 56, width: width - 460 } }, words(c, 1, width - 460 - 112)),
    );
  }
  const band = asset === 'square' ? 460 : 820;
  const pad = asset === 'square' ? 64 : 84;
  const scale = asset === 'square' ? 1.05 : 1.4;
  return h(
    'div',
    { style: { ...root, flexDirection: 'column' } },
    h('div', { style: { display: 'flex', alignItems: 'center', justifyContent: 'center', width, height: band, backgroundImage: PANEL } }, medal(c.kind, asset === 'square' ? 320 : 520)),
    h(
      'div',
      { style: { display: 'flex', flexDirection: 'column', justifyContent: 'space-between', width, height: height - band, padding: pad } },
      words(c, scale, width - 2 * pad),
      qrBlock(c, asset === 'square' ? 150 : 260, asset === 'square' ? 24 : 34),
    ),
  );
}
