import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { appEnv, ownedKeys, Supervised } from '../../scripts/cluster/apps';
import { until } from '../helpers/processes';

// The cluster's apps (scripts/cluster/apps.ts): which settings reach them and how a dead one is started again.
describe('the cluster apps', () => {
  test("the user's settings reach every app, but those the topology owns", () => {
    const user = { SMTP_URL: 'smtp://mail.test:25', STRIPE_SECRET_KEY: 'sk_test_x', LOG_LEVEL: 'debug', DATABASE_URL: 'postgres://mine/db', PORT: '3000', PATH: '/bin' };
    const { env, ignored } = appEnv(user, { LOG_LEVEL: 'warn', NODE_ENV: 'development' }, { DATABASE_URL: 'postgres://pooler/db', HOST: '127.0.0.1' });
    expect(env).toEqual({ SMTP_URL: 'smtp://mail.test:25', STRIPE_SECRET_KEY: 'sk_test_x', LOG_LEVEL: 'debug', NODE_ENV: 'development', PATH: '/bin', DATABASE_URL: 'postgres://pooler/db', HOST: '127.0.0.1' });
    expect(ignored.sort()).toEqual(['DATABASE_URL', 'PORT']);
  });

  test('the owned settings are the ones docs/operations/cluster.md names', () => {
    const doc = fs.readFileSync(path.join(__dirname, '../../docs/operations/cluster.md'), 'utf8');
    const section = /Owned by the cluster[^\n]*\n([\s\S]*?)\n\n/.exec(doc)?.[1] ?? '';
    expect([...section.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]).sort()).toEqual(ownedKeys().sort());
  });

  test('a process that dies is started again, with a longer delay while it keeps dying young; stopped, it stays down', async () => {
    const lines: string[] = [];
    const app = new Supervised('sleeper', () => spawn('sleep', ['600'], { stdio: 'ignore' }), (l) => lines.push(l), { delayMs: 100, maxDelayMs: 10_000, healthyAfterMs: 60_000 });
    app.start();
    const pids = [app.pid!];
    for (let k = 0; k < 3; k += 1) {
      await app.kill();
      pids.push(await until('a new process', () => app.pid !== null && !pids.includes(app.pid) && app.pid, 30_000, 20));
    }
    expect(lines.map((l) => l.replace(/pid \d+/, 'pid N'))).toEqual([0.1, 0.2, 0.4].map((s) => `sleeper (pid N) was killed (SIGKILL); starting it again in ${s} s`));
    const last = app.pid;
    expect(await app.stop()).toBe(null);
    await new Promise((r) => setTimeout(r, 1000));
    expect({ pid: app.pid, last }).toEqual({ pid: null, last });
  });
});
