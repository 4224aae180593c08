import os from 'node:os';
import type { LoadResult } from './load-gen';
import { writeLatestRun } from './results';

/** The telethon bench's figures and how they are written to bench/results/telethon.md. */

/** What the API processes say about themselves (GET /metrics on loopback), summed or maxed over them. */
export interface Inside { tickReadMs: number; tickWriteMs: number; ticks: number; writeP99Bucket: number; lagP99Ms: number; lagMaxMs: number; poolWaitingMax: number }
export interface ViewerReport { settled?: number; open: number; refused: number; refusedBy?: Record<string, number>; retried?: number; ended: number; counts: number[]; dupes: number; deliveries?: number; missing?: number; p50?: number; p99?: number; max?: number; gifts?: number }
export interface Phase {
  /** Cores used per process group during the closed-loop reads, the steady reads, and the gifts alone. */
  cores: Array<Record<string, number>>;
  inside: Inside; processes: number; planned: number; viewers: ViewerReport; gifts: number; webhookFailures: number; rssBefore: number; rssOpen: number; rssAfter: number; alone: LoadResult; during: LoadResult; steadyAlone: LoadResult; steadyDuring: LoadResult; openSeconds: number }

export interface Settings { viewers: number[]; seconds: number; rate: number; readConnections: number; readSeconds: number; readRate: number; viewersNice: number }

export function writeTelethon(phases: Phase[], s: Settings): void {
  const cpu = os.cpus();
  const rows = phases.map((p) => {
    const v = p.viewers;
    // Every viewer every gift that settled (a delivery the API did not acknowledge settles nothing; the processor would retry it).
    const complete = v.counts.filter((n) => n === (v.settled ?? p.gifts)).length;
    const perStreamKb = ((p.rssOpen - p.rssBefore) * 1024) / Math.max(1, v.open);
    return `| ${p.processes} | ${v.open} of ${p.planned} (${v.refused} refused${v.refused ? ` ${JSON.stringify(v.refusedBy ?? {})}` : ''}, ${v.retried ?? 0} connections tried again, ${p.openSeconds.toFixed(0)} s to open) | ${p.gifts} sent, ${v.settled ?? '?'} settled (${p.webhookFailures} not acknowledged) | ${complete} of ${v.open} got all, ${v.missing} missing, ${v.dupes} twice | ${v.p50?.toFixed(0)} / ${v.p99?.toFixed(0)} / ${v.max?.toFixed(0)} | ${p.rssBefore.toFixed(0)} -> ${p.rssOpen.toFixed(0)} -> ${p.rssAfter.toFixed(0)} (${perStreamKb.toFixed(1)} KB per stream) | ${p.alone.p99} / ${p.during.p99} (${(p.during.p99 / Math.max(1, p.alone.p99)).toFixed(2)}x; ${p.alone.rps.toFixed(0)} -> ${p.during.rps.toFixed(0)} req/s) | ${p.steadyAlone.p99} / ${p.steadyDuring.p99} (${(p.steadyDuring.p99 / Math.max(1, p.steadyAlone.p99)).toFixed(2)}x) |`;
  });
  const body = [
    `Run with \`npx tsx bench/telethon.ts\` (TELETHON_VIEWERS=${s.viewers.join(',')}, TELETHON_SECONDS=${s.seconds}, TELETHON_RATE=${s.rate}) on ${cpu.length} x ${cpu[0]?.model ?? 'cpu'}, Node ${process.version}, ` +
      `load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} at the end (a machine shared with other work: read the figures as a floor). ` +
      'The API as `npm start` runs it (READ_CACHE on, jobs off, sandbox processor); viewers are one node process reading raw sockets, each stream with its own X-Forwarded-For, ' +
      `at niceness ${s.viewersNice} (TELETHON_VIEWERS_NICE: it stands for the audience's own machines, so on these shared cores the API comes first; its waiting counts in the delays it measures); ` +
      `gifts are signed \`payment_intent.succeeded\` webhooks at ${s.rate}/s for gifts created beforehand (one in five anonymous); guest slug reads of the same campaign by autocannon, ${s.readConnections} connections, ${s.readSeconds} s alone, then during, once as fast as answers come and once at a steady ${s.readRate} per second (requests spread evenly, each timed from when it was due: bench/steady-load.ts). ` +
      'With 3 processes, viewers, webhooks and reads go through HAProxy with the cluster\'s configuration (round robin).',
    '',
    `| API processes | streams | gifts | every viewer every gift | commit -> viewer p50 / p99 / max (ms) | API RSS before -> streams open -> after (MB) | slug read p99 alone / during, as fast as answered (ms) | slug read p99 alone / during at ${s.readRate}/s (ms) |`,
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    'Inside the API processes while the gifts settle (their GET /metrics, sampled every second): a tick is one campaign\'s reads (new gifts, figures) and one write of the same bytes to each of its viewers.',
    '',
    '| API processes | ticks | tick reads avg (ms) | tick write to all viewers avg / p99 bucket (ms) | event-loop delay p99 of 1 s samples / max (ms) | request-pool waiters max |',
    '|---|---|---|---|---|---|',
    ...phases.map((p) => `| ${p.processes} | ${p.inside.ticks} | ${p.inside.tickReadMs.toFixed(1)} | ${p.inside.tickWriteMs.toFixed(1)} / <= ${p.inside.writeP99Bucket} | ${p.inside.lagP99Ms.toFixed(0)} / ${p.inside.lagMaxMs.toFixed(0)} | ${p.inside.poolWaitingMax} |`),
    '',
    'Where the cores went (CPU seconds per second of each part, from /proc; the machine has ' + cpu.length + '): while the closed-loop reads ran, while the steady reads ran, then the gifts alone.',
    '',
    '| API processes | part | whole machine | API processes | HAProxy | viewers | Postgres | bench (reads, webhooks) |',
    '|---|---|---|---|---|---|---|---|',
    ...phases.flatMap((p) => p.cores.map((c, i) => `| ${p.processes} | ${['closed-loop reads', `steady reads (${s.readRate}/s)`, 'gifts alone'][i]} | ${c.machine} | ${c.api} | ${c.haproxy} | ${c.viewers} | ${c.postgres} | ${c.bench} |`)),
    '',
    'Commit time is live_gifts.settled_at, taken by the trigger that runs as the settlement commits; a viewer\'s time is when its socket read the event. Targets: every viewer every gift, p99 <= 1 s, slug read p99 during <= 2x alone.',
  ].join('\n');
  const p0 = phases[0]!;
  writeLatestRun('telethon', {
    title: 'Telethon: one campaign, many live viewers, 20 gifts a second',
    summary: phases.map((p) => `${p.processes} proc: ${p.viewers.open} streams, p99 ${p.viewers.p99?.toFixed(0)} ms, ${p.viewers.missing} missing`).join('; ') + `; reads p99 ${p0.alone.p99} -> ${p0.during.p99} ms (at ${s.readRate}/s ${p0.steadyAlone.p99} -> ${p0.steadyDuring.p99} ms)`,
    body,
  });
}

