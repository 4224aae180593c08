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
const seen = new Map<string, Float64Array>();
const counts = new Uint32Array(VIEWERS);
const dupes = new Uint32Array(VIEWERS);
/** Viewers whose stream opened: only they can miss a gift (one never let in is counted as not open). */
const opened = new Uint8Array(VIEWERS);
const last = new Array<bigint>(VIEWERS).fill(0n);
let open = 0;
let refused = 0;
let ended = 0;

/** A stream with no answer this long is tried again (a connection the server's full accept queue dropped). */
const ANSWER_MS = 15_000;
let retried = 0;
const refusedBy: Record<string, number> = {};

function viewer(i: number): void {
  const s = net.connect(Number(portArg), host);
  let buf = '';
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
  s.setEncoding('utf8');
  s.on('data', (chunk: string) => {
    const now = Date.now();
    buf += chunk;
    if (!headers) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      clearTimeout(noAnswer);
      settled = true;
      if (!buf.startsWith('HTTP/1.1 200')) {
        refused += 1;
        const status = buf.slice(9, 12);
        refusedBy[status] = (refusedBy[status] ?? 0) + 1;
        s.destroy();
        return;
      }
      headers = true;
      opened[i] = 1;
      open += 1;
      buf = buf.slice(end + 4);
    }
    // Each server write is whole events, so chunk-size lines never split one; a read may.
    const re = /id: (\d+)\nevent: donation\n/g;
    let m: RegExpExecArray | null;
    let consumed = 0;
    while ((m = re.exec(buf))) {
      consumed = re.lastIndex;
      const seq = m[1]!;
      const n = BigInt(seq);
      if (n <= last[i]!) {
        dupes[i] += 1;
        continue;
      }
      last[i] = n;
      counts[i] += 1;
      let times = seen.get(seq);
      if (!times) seen.set(seq, (times = new Float64Array(VIEWERS)));
      times[i] = now;
    }
    buf = buf.slice(consumed);
    if (buf.length > 4096) buf = buf.slice(-256);
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
      const times = seen.get(r.seq);
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
