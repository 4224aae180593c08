/**
 * The telethon bench's load generator (a child of bench/telethon.ts): opens VIEWERS live streams of
 * one campaign over raw sockets (each its own X-Forwarded-For, so the per-address limit is never
 * what stops it), reads them all, and on SIGUSR2 reports on stdout as JSON: how many are open, and
 * per viewer the donation events it got; on 'done' it reads each gift's settled_at from the
 * database and reports every delivery's delay from the settlement's commit.
 *
 *   node --import tsx bench/telethon-viewers.ts <host> <port> <fundraiserId> <viewers> <databaseUrl>
 */
import net from 'node:net';
import { Client } from 'pg';

const [host, portArg, campaign, viewersArg, databaseUrl] = process.argv.slice(2) as [string, string, string, string, string];
const VIEWERS = Number(viewersArg);
const seen = new Map<number, Float64Array>();
const HEAD_END = Buffer.from('\r\n\r\n');
const ID = Buffer.from('id: ');
const DONATION = Buffer.from('\nevent: donation\n');
const counts = new Uint32Array(VIEWERS);
const dupes = new Uint32Array(VIEWERS);
/** Viewers whose stream opened: only they can miss a gift (one never let in is counted as not open). */
const opened = new Uint8Array(VIEWERS);
const last = new Float64Array(VIEWERS);
let open = 0;
let refused = 0;
let ended = 0;

/** A stream with no answer this long is tried again (a connection the server's full accept queue dropped). */
const ANSWER_MS = 15_000;
let retried = 0;
const refusedBy: Record<string, number> = {};

function viewer(i: number): void {
  const s = net.connect(Number(portArg), host);
  let headers = false;
  let settled = false;
  // As EventSource would: a connection that failed or never answered is made again shortly.
  const again = () => {
    if (settled) return;
    settled = true;
    retried += 1;
    s.destroy();
    setTimeout(() => viewer(i), 500 + Math.random() * 1500);
  };
  const noAnswer = setTimeout(again, ANSWER_MS);
  s.setNoDelay(true);
  s.on('connect', () => {
    s.write(`GET /api/v1/fundraisers/${campaign}/live HTTP/1.1\r\nHost: ${host}\r\nAccept: text/event-stream\r\n` +
      `X-Forwarded-For: 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}\r\n\r\n`);
  });
  // Bytes, not strings: this process stands for the audience's own machines, so it should take as
  // little of the shared cores as it can (a regex over decoded text with a BigInt per event cost it
  // about twice the CPU at 10,000 viewers and 20 gifts a second).
  let rest: Buffer | null = null;
  s.on('data', (chunk: Buffer) => {
    const now = Date.now();
    let buf = rest ? Buffer.concat([rest, chunk]) : chunk;
    rest = null;
    if (!headers) {
      const end = buf.indexOf(HEAD_END);
      if (end < 0) {
        rest = buf;
        return;
      }
      clearTimeout(noAnswer);
      settled = true;
      if (buf.toString('latin1', 0, 12) !== 'HTTP/1.1 200') {
        refused += 1;
        const status = buf.toString('latin1', 9, 12);
        refusedBy[status] = (refusedBy[status] ?? 0) + 1;
        s.destroy();
        return;
      }
      headers = true;
      opened[i] = 1;
      open += 1;
      buf = buf.subarray(end + 4);
    }
    // Each server write is whole events, so chunk-size lines never split one; a read may.
    let at = 0;
    let consumed = 0;
    for (;;) {
      const idAt = buf.indexOf(ID, at);
      if (idAt < 0) break;
      let p = idAt + ID.length;
      let n = 0;
      while (p < buf.length && buf[p]! >= 48 && buf[p]! <= 57) n = n * 10 + (buf[p++]! - 48);
      if (p + DONATION.length > buf.length) break;
      at = p;
      if (buf.compare(DONATION, 0, DONATION.length, p, p + DONATION.length) !== 0) continue;
      at = consumed = p + DONATION.length;
      if (n <= last[i]!) {
        dupes[i] += 1;
        continue;
      }
      last[i] = n;
      counts[i] += 1;
      let times = seen.get(n);
      if (!times) seen.set(n, (times = new Float64Array(VIEWERS)));
      times[i] = now;
    }
    const tail = buf.subarray(Math.max(consumed, buf.length - 256));
    if (tail.length > 0 && buf.indexOf(ID, consumed) >= 0) rest = Buffer.from(tail);
  });
  s.on('close', () => {
    clearTimeout(noAnswer);
    if (headers) ended += 1;
    else again();
  });
  s.on('error', () => undefined);
}

async function report(withDelays: boolean): Promise<void> {
  const out: Record<string, unknown> = { open, refused, refusedBy, ended, retried, counts: Array.from(counts), dupes: dupes.reduce((a, b) => a + b, 0) };
  if (withDelays) {
    const c = new Client({ connectionString: databaseUrl });
    await c.connect();
    const { rows } = await c.query(`select seq::text, extract(epoch from settled_at) * 1000 as at from live_gifts where fundraiser_id = $1`, [campaign]);
    await c.end();
    const delays: number[] = [];
    let missing = 0;
    for (const r of rows as Array<{ seq: string; at: string }>) {
      const times = seen.get(Number(r.seq));
      if (!times) {
        // A settled gift no viewer got: every open viewer missed it.
        missing += opened.reduce((a, b) => a + b, 0);
        continue;
      }
      times.forEach((t, v) => {
        if (t !== 0) delays.push(t - Number(r.at));
        else if (opened[v]) missing += 1;
      });
    }
    delays.sort((a, b) => a - b);
    const pct = (p: number) => delays[Math.min(delays.length - 1, Math.max(0, Math.ceil((p / 100) * delays.length) - 1))] ?? NaN;
    Object.assign(out, { settled: rows.length, deliveries: delays.length, missing, p50: pct(50), p99: pct(99), max: delays.at(-1) ?? NaN, gifts: seen.size });
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (d: string) => {
  for (const cmd of d.split('\n').filter(Boolean)) {
    if (cmd === 'status') void report(false);
    if (cmd === 'done') void report(true).then(() => process.exit(0));
  }
});

// Opened in waves (1,000 a second), so the server's accept queue is not what is measured.
let i = 0;
const wave = setInterval(() => {
  for (let k = 0; k < 100 && i < VIEWERS; k++) viewer(i++);
  if (i >= VIEWERS) clearInterval(wave);
}, 100);
