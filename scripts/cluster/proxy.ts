import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../../src/infra/free-port';
import { track } from './reaper';
import { accepts, bin, until } from './util';

/**
 * HAProxy in front of the API processes: its configuration, its health view of each (the stats
 * page) and its runtime API (a Unix socket in the cluster's folder), through which a rolling
 * restart takes a process out of the rotation before stopping it.
 */

export interface Proxy {
  url: string;
  statsUrl: string;
  child: ChildProcess;
  /** HAProxy's view of API process i: 'UP', 'DOWN', 'DRAIN', 'MAINT', 'UP 1/2', ... */
  apiState(i: number): Promise<string>;
  /** Waits until HAProxy sees API process i in `state` (default 'UP'). */
  waitApiState(i: number, state?: string, ms?: number): Promise<void>;
  /** `drain`: no new requests (health checks go on); `ready`: back in the rotation once its checks pass. */
  setApiAdminState(i: number, state: 'drain' | 'ready'): Promise<void>;
}

/**
 * Round robin over the API processes, each checked on /readyz every 500 ms (down after 3
 * failures, up after 2 successes), so a draining process (readyz 503 at SIGTERM, serving for
 * SHUTDOWN_DRAIN_MS) leaves the rotation before it stops accepting. A connection refused (a
 * process killed before the check noticed) is retried on another server (retries + redispatch);
 * only connection failures are retried, never a request a server may have started (a gift).
 * No `on-marked-down shutdown-sessions`: it would cut the requests a draining process finishes.
 */
export function haproxyConfig(port: number, statsPort: number, apiPorts: number[], adminSocket?: string): string {
  return [
    'global',
    // Each live stream holds a client and a server connection for as long as it is watched; with
    // 20,000 open files per process HAProxy can hold about 9,000 of them (it sizes its own fd limit from this).
    '  maxconn 9000',
    ...(adminSocket ? [`  stats socket ${adminSocket} mode 600 level admin`] : []),
    'defaults',
    '  mode http',
    '  option httplog',
    '  timeout connect 2s',
    // Longer than a client's keep-alive idle time (undici: 4 s), so the client closes first.
    '  timeout client 60s',
    '  timeout http-keep-alive 60s',
    '  timeout server 60s',
    // A live stream (text/event-stream) is an ordinary HTTP response that never ends: HAProxy
    // forwards its bytes as they come (no response buffering in HTTP mode), and client/server are
    // inactivity timeouts that its comment line every 15 s resets. A tunnel (an upgraded
    // connection) is held to `timeout tunnel` instead: long, with client-fin for peers that vanish.
    '  timeout tunnel 1h',
    '  timeout client-fin 30s',
    '  retries 3',
    '  option redispatch 1',
    'frontend api_in',
    `  bind 127.0.0.1:${port}`,
    '  option forwardfor',
    '  default_backend api',
    'backend api',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    // A check answers within `timeout check` (else HAProxy's default is `inter`: 500 ms, which a
    // busy machine misses on every server at once, leaving none); /readyz itself answers within
    // 800 ms. A draining process answers 503 at once and a killed one refuses at once, so
    // fall 3 x fastinter still leaves the rotation well inside SHUTDOWN_DRAIN_MS.
    '  timeout check 3s',
    '  default-server inter 500ms fastinter 250ms downinter 500ms fall 3 rise 2',
    ...apiPorts.map((p, i) => `  server api${i} 127.0.0.1:${p} check`),
    'listen stats',
    `  bind 127.0.0.1:${statsPort}`,
    '  stats enable',
    '  stats uri /stats',
    '',
  ].join('\n');
}

/** One command on HAProxy's runtime API; answers what it printed. */
function runtimeCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const s = net.connect(socket, () => s.end(`${command}\n`));
    s.setTimeout(10_000, () => s.destroy(new Error(`HAProxy did not answer "${command}"`)));
    s.on('data', (d) => (out += d));
    s.once('error', reject);
    s.once('close', () => resolve(out.trim()));
  });
}

export async function startProxy(dir: string, port: number, apiPorts: number[]): Promise<Proxy> {
  const statsPort = await freePort();
  const socket = path.join(dir, 'haproxy.sock');
  const cfg = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(cfg, haproxyConfig(port, statsPort, apiPorts, socket));
  const child = track(dir, spawn(bin('haproxy'), ['-db', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] }));
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  await until('haproxy', async () => {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`);
    return accepts(port);
  }, 30_000).catch((err) => {
    child.kill('SIGKILL');
    throw child.exitCode !== null ? new Error(`haproxy exited: ${stderr}`) : err;
  });
  const statsUrl = `http://127.0.0.1:${statsPort}/stats`;
  const apiState = async (i: number) => {
    const csv = await (await fetch(`${statsUrl};csv`)).text();
    const row = csv.split('\n').find((l) => l.startsWith(`api,api${i},`));
    if (!row) throw new Error(`no HAProxy row for api${i}`);
    const header = csv.split('\n')[0]!.replace(/^# /, '').split(',');
    return row.split(',')[header.indexOf('status')]!;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    statsUrl,
    child,
    apiState,
    waitApiState: async (i, state = 'UP', ms = 60_000) => {
      await until(`HAProxy to see api${i} ${state}`, async () => (await apiState(i)).startsWith(state), ms, 100);
    },
    setApiAdminState: async (i, state) => {
      const out = await runtimeCommand(socket, `set server api/api${i} state ${state}`);
      if (out) throw new Error(`HAProxy: set server api/api${i} state ${state}: ${out}`);
    },
  };
}
