import { randomBytes, randomUUID } from 'node:crypto';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError, notFound } from '../../http/errors';
import { orgsWherePermitted, requireOrgPermissionById } from '../organizations';
import * as repo from './webhook-endpoints.repo';
import type { EndpointRow } from './webhook-endpoints.repo';
import { toDelivery, toEndpoint } from './webhook-endpoints.schemas';
import { queueDelivery } from './webhook-endpoints.delivery';
import { guardOptions, UrlRefused, vetUrl } from './url-guard';

const PERMISSION = 'org.update_settings' as const;

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** 400 WEBHOOK_URL_REFUSED unless the URL passes the same check the sender makes. */
async function checkUrl(ctx: AppContext, url: string): Promise<void> {
  try {
    await vetUrl(url, guardOptions(ctx.config));
  } catch (err) {
    if (!(err instanceof UrlRefused)) throw err;
    throw new ApiError(400, 'Bad request', `The webhook URL is refused: ${err.message}`, { code: 'WEBHOOK_URL_REFUSED' });
  }
}

/**
 * An endpoint the caller manages: their own, or one of an organization where they hold
 * org.update_settings. Anything else is 404, so ids of other accounts' endpoints reveal nothing.
 */
export async function manageableEndpoint(ctx: AppContext, actor: Actor, id: string): Promise<EndpointRow> {
  const row = await repo.endpointById(ctx.db, id);
  if (row) {
    if (row.organization_id === null && row.user_id === actor.userId) return row;
    if (row.organization_id !== null && (await orgsWherePermitted(ctx.db, actor, PERMISSION)).includes(row.organization_id)) return row;
  }
  throw notFound('Webhook endpoint');
}

export async function createEndpoint(
  ctx: AppContext,
  actor: Actor,
  body: { url: string; events: string[]; description?: string | null; organization_id?: string | null },
) {
  const orgId = body.organization_id ?? null;
  if (orgId) await requireOrgPermissionById(ctx.db, actor, orgId, PERMISSION);
  await checkUrl(ctx, body.url);
  const row = await repo.insertEndpoint(ctx.db, {
    user_id: actor.userId,
    organization_id: orgId,
    url: body.url,
    events: body.events,
    description: body.description ?? null,
    secret: newSecret(),
  });
  return { data: { ...toEndpoint(row), secret: row.secret } };
}

export async function listEndpoints(ctx: AppContext, actor: Actor, limit: number, offset: number) {
  const orgIds = await orgsWherePermitted(ctx.db, actor, PERMISSION);
  const { rows, total } = await repo.listVisible(ctx.db, actor.userId, orgIds, limit, offset);
  return { data: rows.map(toEndpoint), pagination: { limit, offset, total } };
}

export async function patchEndpoint(
  ctx: AppContext,
  row: EndpointRow,
  body: { url?: string; events?: string[]; description?: string | null; status?: 'enabled' | 'disabled' },
) {
  if (body.url !== undefined) await checkUrl(ctx, body.url);
  const patch = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  return { data: toEndpoint(await repo.updateEndpoint(ctx.db, row.id, patch)) };
}

export async function removeEndpoint(ctx: AppContext, row: EndpointRow): Promise<void> {
  await repo.deleteEndpoint(ctx.db, row.id);
}

export async function rotateSecret(ctx: AppContext, row: EndpointRow) {
  const updated = await repo.updateEndpoint(ctx.db, row.id, { secret: newSecret() });
  return { data: { secret: updated.secret } };
}

/** Queues a `ping` to the endpoint (whatever event types it takes). */
export async function sendPing(ctx: AppContext, row: EndpointRow) {
  const eventId = randomUUID();
  const id = await ctx.db.transaction(async (trx) => {
    const d = await queueDelivery(trx, row.id, eventId, 'ping', new Date(), { endpoint_id: row.id });
    return d!.id;
  });
  return { message: 'Ping queued', delivery_id: id };
}

export async function listDeliveries(ctx: AppContext, row: EndpointRow, limit: number, offset: number) {
  const { rows, total } = await repo.listDeliveries(ctx.db, row.id, limit, offset);
  return { data: rows.map(toDelivery), pagination: { limit, offset, total } };
}

export { retryDelivery } from './webhook-endpoints.delivery';
