import type { Request, Response } from 'express';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { clientIp } from '../../http/client-ip';
import { defineRoutes, idParams, route } from '../../http/define-routes';
import { ApiError, notFound, withRequestId } from '../../http/errors';
import { journalGiftsAfter } from '../donations';
import { liveHub, type LiveHub } from './live.hub';
import { closingReason, sseEvent } from './live.reads';
import { liveStream } from './live.schemas';
import { Viewer } from './live.viewer';

/** Open streams one client address may hold in one process. */
export const STREAMS_PER_ADDRESS = 20;
export const REPLAY_MAX = 100;
export const REPLAY_MAX_AGE_MS = 10 * 60_000;
/** How soon an EventSource tries again after the stream ends (a graceful stop, a lost connection). */
const RECONNECT_MS = 2_000;

/** The Last-Event-ID a reconnecting EventSource sends: a journal position, or nothing usable. */
function cursorOf(header: string | string[] | undefined): bigint | null {
  const v = Array.isArray(header) ? header[0] : header;
  return v && /^\d{1,18}$/.test(v.trim()) ? BigInt(v.trim()) : null;
}

function refuse(res: Response, status: 429 | 503, retryAfter: number, body: Record<string, unknown>, req: Request): void {
  res.setHeader('Retry-After', String(retryAfter));
  res.status(status).json(withRequestId(req, body));
}

async function openStream(req: Request, res: Response, ctx: AppContext, hub: LiveHub, actor: Actor | null, id: string, address: string): Promise<void> {
  const state = await hub.startState(id);
  if (closingReason(state, actor) === 'unavailable') throw notFound('Fundraiser');
  const last = cursorOf(req.headers['last-event-id']);
  const viewer = new Viewer(res, actor, address, 0n);
  res.once('close', () => {
    viewer.ended = true;
    hub.leave(id, viewer);
  });
  let head: bigint;
  try {
    head = await hub.join(id, viewer);
  } catch {
    throw new ApiError(503, 'Service unavailable', 'Live updates are unavailable for a moment; try again', { code: 'LIVE_UNAVAILABLE' });
  }
  viewer.after = last !== null && last > head ? last : head;
  const replay = last !== null && last < head ? await journalGiftsAfter(ctx.db, id, last.toString(), { limit: REPLAY_MAX, newest: true, since: new Date(Date.now() - REPLAY_MAX_AGE_MS) }) : [];
  if (res.writableEnded || viewer.ended) return;
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Accel-Buffering', 'no');
  // The stream is kept alive by its comment lines, not cut by the server's idle timeout.
  req.socket.setTimeout(0);
  req.socket.setNoDelay(true);
  res.flushHeaders();
  let first = `retry: ${RECONNECT_MS}\n\n` + sseEvent('progress', state!.progress);
  for (const g of replay) {
    if (BigInt(g.seq) > head) break;
    const { id: giftId, amount_cents, currency, donor_name, created_at } = g.gift;
    first += sseEvent('donation', { id: giftId, amount_cents, currency, donor_name, created_at }, g.seq);
  }
  const reason = closingReason(state, actor);
  if (reason) {
    viewer.open(first);
    return viewer.end(sseEvent('closed', { reason }));
  }
  viewer.open(first);
}

export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/fundraisers/:id/live',
      skipGlobalLimiter: true,
      summary: 'Live progress of a campaign (server-sent events)',
      description:
        'A `text/event-stream` that stays open: `progress` at once and after every change of the figures (at most one every 250 ms), `donation` for each settled gift (the donor list\'s public fields; its `id:` is a cursor that only grows), and `closed` when the campaign ends or the caller may no longer read it, after which the stream ends. ' +
        'Events are written in batches, at most one write every 250 ms. A reconnect with `Last-Event-ID` first replays the donations after it (at most 100, at most 10 minutes old). A comment line every 15 s keeps proxies from closing the stream. ' +
        `Limits: ${STREAMS_PER_ADDRESS} open streams per client address (429 beyond, in the rate limiters' shape), LIVE_MAX_STREAMS per server process (503 with Retry-After beyond). ` +
        'A server that stops ends its streams first: EventSource reconnects (to another server) with Last-Event-ID and misses nothing. A campaign the caller may not read answers 404, as its detail read. ' +
        'How to consume it: docs/integrators/live-stream.md.',
      auth: 'optional',
      limiters: ['public'],
      params: idParams,
      produces: 'text/event-stream',
      response: liveStream,
      errors: [404, 503],
      handler: async ({ req, res, ctx, actor, params }) => {
        const hub = liveHub(ctx);
        if (hub.closing) return refuse(res, 503, 1, { error: 'Service unavailable', message: 'This server is stopping; reconnect', code: 'SHUTTING_DOWN' }, req);
        if (hub.open >= ctx.config.LIVE_MAX_STREAMS) {
          return refuse(res, 503, 5, { error: 'Service unavailable', message: 'This server holds as many live streams as it may; try again shortly', code: 'LIVE_STREAMS_FULL' }, req);
        }
        const address = clientIp(req);
        if (hub.openFrom(address) >= STREAMS_PER_ADDRESS) {
          return refuse(res, 429, 15, { error: `At most ${STREAMS_PER_ADDRESS} live streams may be open from one address`, retryAfter: 15 }, req);
        }
        hub.reserve(address);
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          hub.release(address);
        };
        res.once('close', release);
        try {
          await openStream(req, res, ctx, hub, actor, params.id, address);
        } catch (err) {
          release();
          throw err;
        }
      },
    }),
  ],
  { tag: 'fundraisers' },
);
