import { connect } from 'node:net';
import type { AppContext } from '../../context';
import { lateJobs, lateQueuedMail } from './trust.reads';

export type ComponentStatus = 'operational' | 'degraded' | 'outage';
export interface Component {
  name: 'database' | 'processor' | 'mail' | 'queue';
  status: ComponentStatus;
}

const CHECK_TIMEOUT_MS = 3000;
const SLOW_DATABASE_MS = 1000;
/** A due job still waiting this long means the workers are behind; twice as long and more, down. */
const QUEUE_LATE_MINUTES = 5;
const QUEUE_STALLED_MINUTES = 30;
/** Mail queued this long and still unsent means delivery is failing. */
const MAIL_LATE_MINUTES = 15;

function withTimeout<T>(work: Promise<T>, ms = CHECK_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('check timed out')), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Whether a TCP connection to host:port opens in time (no data is sent: no credentials leave). */
export function reachable(host: string, port: number, ms = CHECK_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(ms, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function endpoint(url: string, defaultPort: number): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port ? Number(u.port) : defaultPort };
}

async function database(ctx: AppContext): Promise<ComponentStatus> {
  const started = Date.now();
  try {
    await withTimeout(ctx.db.raw('select 1'));
    return Date.now() - started > SLOW_DATABASE_MS ? 'degraded' : 'operational';
  } catch {
    return 'outage';
  }
}

/** The sandbox runs in-process; Stripe (or STRIPE_API_URL) must accept a connection. */
async function processor(ctx: AppContext): Promise<ComponentStatus> {
  if (ctx.payments.name === 'sandbox') return 'operational';
  const url = ctx.config.STRIPE_API_URL ?? 'https://api.stripe.com';
  const { host, port } = endpoint(url, url.startsWith('http:') ? 80 : 443);
  return (await reachable(host, port)) ? 'operational' : 'outage';
}

/** With SMTP: the server accepts a connection and nothing waits long in the outbox. Without: mail is kept in the outbox (by design). */
async function mail(ctx: AppContext): Promise<ComponentStatus> {
  const smtp = ctx.config.SMTP_URL;
  if (!smtp) return 'operational';
  const { host, port } = endpoint(smtp, smtp.startsWith('smtps:') ? 465 : 25);
  if (!(await reachable(host, port))) return 'outage';
  try {
    const late = await withTimeout(lateQueuedMail(ctx.db, MAIL_LATE_MINUTES));
    return late ? 'degraded' : 'operational';
  } catch {
    return 'degraded';
  }
}

/** Due jobs (not dead) left waiting: behind after 5 minutes, stalled after 30. */
async function queue(ctx: AppContext): Promise<ComponentStatus> {
  try {
    const row = await withTimeout(lateJobs(ctx.db, QUEUE_LATE_MINUTES));
    const late = row?.late_minutes === null || row?.late_minutes === undefined ? 0 : Number(row.late_minutes);
    if (late >= QUEUE_STALLED_MINUTES) return 'outage';
    return late > 0 ? 'degraded' : 'operational';
  } catch {
    return 'outage';
  }
}

/** Every component checked at once; the whole is an outage when the database is, degraded when anything is not fully up. */
export async function runChecks(ctx: AppContext): Promise<{ status: ComponentStatus; components: Component[] }> {
  const [db, pay, m, q] = await Promise.all([database(ctx), processor(ctx), mail(ctx), queue(ctx)]);
  const components: Component[] = [
    { name: 'database', status: db },
    { name: 'processor', status: pay },
    { name: 'mail', status: m },
    { name: 'queue', status: q },
  ];
  const status: ComponentStatus = db === 'outage' ? 'outage' : components.every((c) => c.status === 'operational') ? 'operational' : 'degraded';
  return { status, components };
}
