import { h, type Node, type Style } from './render';
import type { ShareLabels } from './labels';
import { FONT_STACK } from './fonts';

/** What a campaign image shows; the service fills it from the guest's view of the campaign. */
export interface CampaignCard {
  title: string;
  category: string | null;
  raisedCents: number;
  goalCents: number;
  currency: string;
  donors: number;
  percent: number;
  ended: boolean;
  /** A data: URL already cut to the cover box, or null (a gradient stands in). */
  cover: string | null;
  host: string;
}

export type CampaignFormat = 'og' | 'poster' | 'story';

export const SIZES: Record<CampaignFormat | 'profile', { width: number; height: number }> = {
  og: { width: 1200, height: 630 },
  poster: { width: 1080, height: 1080 },
  story: { width: 1080, height: 1920 },
  profile: { width: 1200, height: 630 },
};

/** Where the cover sits in each format (the service cuts the cover to exactly this box). */
export const COVER_BOX: Record<CampaignFormat, { width: number; height: number }> = {
  og: { width: 500, height: 630 },
  poster: { width: 1080, height: 520 },
  story: { width: 1080, height: 860 },
};

const INK = '#0f172a';
const MUTED = '#64748b';
const GREEN = '#15803d';
const TRACK = '#e2e8f0';
const BAR = 'linear-gradient(90deg, #22c55e 0%, #15803d 100%)';
const PANEL = 'linear-gradient(135deg, #0f766e 0%, #15803d 55%, #65a30d 100%)';

/** Per-format type scale: one template, three canvases. */
const SCALE: Record<CampaignFormat, { pad: number; title: number; lines: number; amount: number; text: number; bar: number; cta: number }> = {
  og: { pad: 52, title: 50, lines: 3, amount: 50, text: 24, bar: 18, cta: 26 },
  poster: { pad: 64, title: 58, lines: 2, amount: 64, text: 28, bar: 22, cta: 30 },
  story: { pad: 84, title: 76, lines: 3, amount: 96, text: 38, bar: 30, cta: 44 },
};

function coverNode(card: CampaignCard, box: { width: number; height: number }, style: Style = {}): Node {
  if (card.cover) {
    return h('img', { src: card.cover, width: box.width, height: box.height, style: { width: box.width, height: box.height, objectFit: 'cover', ...style } });
  }
  // No stored cover: a gradient with the title's first letter, so the card never looks empty.
  const initial = (card.title.trim()[0] ?? '♥').toUpperCase();
  return h(
    'div',
    { style: { display: 'flex', alignItems: 'center', justifyContent: 'center', width: box.width, height: box.height, backgroundImage: PANEL, ...style } },
    h('div', { style: { display: 'flex', fontSize: Math.round(box.height * 0.42), fontWeight: 800, color: 'rgba(255,255,255,0.9)' } }, initial),
  );
}

function progressBar(percent: number, height: number): Node {
  const shown = percent <= 0 ? 0 : Math.max(3, Math.min(100, percent));
  return h(
    'div',
    { style: { display: 'flex', width: '100%', height, borderRadius: height, backgroundColor: TRACK, overflow: 'hidden' } },
    shown > 0 ? h('div', { style: { display: 'flex', width: `${shown}%`, height, borderRadius: height, backgroundImage: BAR } }) : null,
  );
}

function chip(text: string, size: number): Node {
  return h(
    'div',
    { style: { display: 'flex', alignSelf: 'flex-start', padding: `${Math.round(size * 0.3)}px ${Math.round(size * 0.7)}px`, borderRadius: size * 2, backgroundColor: '#dcfce7', color: GREEN, fontSize: size, fontWeight: 600 } },
    text,
  );
}

/** The text half of a campaign card: title, money, progress, donors and the call to action. */
function details(card: CampaignCard, l: ShareLabels, format: CampaignFormat): Node {
  const s = SCALE[format];
  const reached = card.goalCents > 0 && card.raisedCents >= card.goalCents;
  const status = card.ended ? l.ended : reached ? l.goalReached : null;
  const gap = Math.round(s.text * 0.7);
  return h(
    'div',
    { style: { display: 'flex', flexDirection: 'column', flexGrow: 1, flexBasis: 0, padding: s.pad, justifyContent: 'space-between', backgroundColor: '#ffffff' } },
    h(
      'div',
      { style: { display: 'flex', flexDirection: 'column', gap } },
      card.category || status ? chip(status ?? card.category!, Math.round(s.text * 0.85)) : null,
      h(
        'div',
        { style: { display: 'block', fontSize: s.title, fontWeight: 800, color: INK, lineHeight: 1.12, letterSpacing: -1, lineClamp: s.lines } },
        card.title,
      ),
    ),
    h(
      'div',
      { style: { display: 'flex', flexDirection: 'column', gap } },
      h(
        'div',
        { style: { display: 'flex', alignItems: 'baseline', flexWrap: 'wrap', columnGap: Math.round(s.text * 0.6) } },
        h('div', { style: { display: 'flex', fontSize: s.amount, fontWeight: 800, color: GREEN, letterSpacing: -1 } }, l.money(card.raisedCents, card.currency)),
        h('div', { style: { display: 'flex', fontSize: s.text, color: MUTED } }, l.raisedOf(l.money(card.goalCents, card.currency))),
      ),
      progressBar(card.percent, s.bar),
      h(
        'div',
        { style: { display: 'flex', alignItems: 'center', justifyContent: 'space-between', marginTop: Math.round(gap * 0.5) } },
        h(
          'div',
          { style: { display: 'flex', flexDirection: 'column', fontSize: s.text, color: MUTED } },
          h('div', { style: { display: 'flex', color: INK, fontWeight: 600 } }, `${l.count(card.donors)} ${l.donorsLabel(card.donors)} · ${l.ofGoal(l.percent(card.percent))}`),
          h('div', { style: { display: 'flex', fontSize: Math.round(s.text * 0.85) } }, card.host),
        ),
        h(
          'div',
          { style: { display: 'flex', padding: `${Math.round(s.cta * 0.55)}px ${Math.round(s.cta * 1.1)}px`, borderRadius: s.cta * 2, backgroundColor: GREEN, color: '#ffffff', fontSize: s.cta, fontWeight: 800 } },
          l.cta,
        ),
      ),
    ),
  );
}

export function campaignImage(card: CampaignCard, l: ShareLabels, format: CampaignFormat): Node {
  const { width, height } = SIZES[format];
  const root: Style = { display: 'flex', width, height, fontFamily: FONT_STACK, backgroundColor: '#ffffff' };
  if (format === 'og') {
    return h('div', { style: { ...root, flexDirection: 'row' } }, coverNode(card, COVER_BOX.og), details(card, l, format));
  }
  const cover = coverNode(card, COVER_BOX[format]);
  if (format === 'poster') return h('div', { style: { ...root, flexDirection: 'column' } }, cover, details(card, l, format));
  // Story: the cover, the details, then a tagline band for the bottom of a phone screen.
  return h(
    'div',
    { style: { ...root, flexDirection: 'column' } },
    cover,
    details(card, l, format),
    h(
      'div',
      { style: { display: 'flex', justifyContent: 'center', padding: '0 84px 84px', fontSize: 34, color: MUTED, backgroundColor: '#ffffff' } },
      l.storyTagline,
    ),
  );
}

/** What the profile image shows. */
export interface ProfileCard {
  name: string;
  handle: string | null;
  bio: string | null;
  avatar: string | null;
  since: Date;
  host: string;
}

export function profileImage(p: ProfileCard, l: ShareLabels): Node {
  const { width, height } = SIZES.profile;
  const initials = p.name.split(/\s+/).filter(Boolean).slice(0, 2).map((w) => w[0]!.toUpperCase()).join('') || '?';
  const avatar = p.avatar
    ? // The ring and the clipping sit on a wrapper: on the img itself satori rounds the border, not the picture.
      h(
        'div',
        { style: { display: 'flex', flexShrink: 0, padding: 8, borderRadius: '50%', backgroundColor: '#ffffff', boxShadow: '0 16px 40px rgba(15,23,42,0.18)' } },
        h('img', { src: p.avatar, width: 260, height: 260, style: { width: 260, height: 260, borderRadius: '50%' } }),
      )
    : h(
        'div',
        { style: { display: 'flex', alignItems: 'center', justifyContent: 'center', width: 260, height: 260, flexShrink: 0, borderRadius: 130, backgroundImage: PANEL, border: '8px solid #ffffff', boxShadow: '0 16px 40px rgba(15,23,42,0.18)', color: '#ffffff', fontSize: 104, fontWeight: 800 } },
        initials,
      );
  return h(
    'div',
    { style: { display: 'flex', width, height, fontFamily: FONT_STACK, backgroundImage: 'linear-gradient(135deg, #f0fdf4 0%, #ffffff 60%, #ecfeff 100%)', padding: 72, alignItems: 'center', gap: 64 } },
    avatar,
    h(
      'div',
      // An explicit width: with flex-basis 0 satori measured the text against the whole canvas.
      { style: { display: 'flex', flexDirection: 'column', width: width - 2 * 72 - 276 - 64, gap: 18 } },
      chip(l.profileKicker, 24),
      h('div', { style: { display: 'block', fontSize: 64, fontWeight: 800, color: INK, letterSpacing: -1, lineHeight: 1.1, lineClamp: 2 } }, p.name),
      p.handle ? h('div', { style: { display: 'flex', fontSize: 30, color: GREEN, fontWeight: 600 } }, `@${p.handle}`) : null,
      p.bio ? h('div', { style: { display: 'block', fontSize: 28, color: '#334155', lineHeight: 1.35, lineClamp: 3 } }, p.bio) : null,
      h(
        'div',
        { style: { display: 'flex', alignItems: 'center', justifyContent: 'space-between', marginTop: 18 } },
        h('div', { style: { display: 'flex', flexDirection: 'column', fontSize: 24, color: MUTED } }, h('div', { style: { display: 'flex' } }, l.memberSince(p.since.getUTCFullYear())), h('div', { style: { display: 'flex' } }, p.host)),
        h('div', { style: { display: 'flex', padding: '14px 30px', borderRadius: 60, backgroundColor: GREEN, color: '#ffffff', fontSize: 26, fontWeight: 800 } }, l.profileCta),
      ),
    ),
  );
}
