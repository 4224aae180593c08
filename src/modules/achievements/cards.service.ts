import * as QRCode from 'qrcode';
import type { AppContext } from '../../context';
import { renderOffThread } from '../share-images';
import { achievementLabel, cardWords, type AchievementLang } from './achievements.labels';
import { cardPageUrl, earnerName, loadCard } from './achievements.service';
import { CARD_SIZES, cardImage, type CardAsset } from './cards.template';

/** The spec's image cache: 30 s on the server and in shared caches. */
export const CARD_TTL_S = 30;

/** The QR code of the card's public page, as SVG (the site shows it; the images embed it). */
export function qrSvg(ctx: Pick<AppContext, 'config'>, code: string): Promise<string> {
  return QRCode.toString(cardPageUrl(ctx, code), { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/** GET /cards/{code}/qr.svg: 404 unless a guest may see the card. */
export async function cardQr(ctx: AppContext, code: string): Promise<string> {
  await loadCard(ctx.db, null, code);
  return qrSvg(ctx, code);
}

/**
 * A card image as a guest sees the card (404 otherwise), rendered by the one share-image
 * renderer and kept CARD_TTL_S seconds (base64 in ctx.cache, so replicas with Redis share it).
 * The card is read on every request, before the cache: a profile made private is 404 at once,
 * and a campaign that stopped being readable is never drawn from an older render (the key says
 * whether the campaign is shown).
 */
export async function cardPng(ctx: AppContext, code: string, lang: AchievementLang, asset: CardAsset): Promise<Buffer> {
  const c = await loadCard(ctx.db, null, code);
  const b64 = await ctx.cache.wrap(`card-image:${asset}:${code}:${lang}:${c.fundraiser ? 'f' : '-'}`, CARD_TTL_S, async () => {
    const w = cardWords(lang);
    const qr = asset === 'og' ? null : `data:image/svg+xml;base64,${Buffer.from(await qrSvg(ctx, code)).toString('base64')}`;
    const node = cardImage(
      {
        kind: c.row.kind,
        label: achievementLabel(c.row.kind, lang),
        kicker: w.kicker,
        earnedBy: w.earnedBy(earnerName(c.earner)),
        campaign: c.fundraiser?.title ?? null,
        date: w.date(new Date(c.row.earned_at)),
        host: new URL(ctx.config.SITE_URL).host,
        qr,
        scan: w.scan,
      },
      asset,
    );
    const { width, height } = CARD_SIZES[asset];
    return (await renderOffThread(ctx, node, width, height)).toString('base64');
  });
  return Buffer.from(b64, 'base64');
}
