import { spawn, type ChildProcess } from 'node:child_process';
import { closeDb, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { freePort, ROOT, until } from '../helpers/processes';
import { reaped } from '../helpers/reaped';

/**
 * Proof (c): the whole money flow offline, in the real service as `npm start` runs it (its own
 * process, no STRIPE_SECRET_KEY, the sandbox processor), on this file's fresh database. A guest
 * gives, pays on the sandbox's hosted checkout page with a plain form post, and the signed
 * webhook the sandbox delivers over HTTP settles the gift into the campaign's totals.
 */


let child: ChildProcess | null = null;
let output = '';

afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('close', r));
    process.kill(child.pid, 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  }
  await closeDb();
});

test('when a guest gives through the sandbox checkout of the running service, then the signed webhook settles it and the campaign total shows the gift', async () => {
  const db = testDb();
  const owner = await createUser(db);
  const campaign = await createFundraiser(db, owner.id);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;

  // `npm start` is `exec node --import tsx src/server.ts`; the same command, without npm in between.
  child = reaped(spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: process.env.TEST_DATABASE_URL,
      DATABASE_DIRECT_URL: process.env.TEST_DIRECT_DATABASE_URL,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: origin,
      SITE_URL: 'http://site.test',
      LOG_LEVEL: 'warn',
    },
  }));
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await until('the server', async () => ((await fetch(`${origin}/readyz`)).ok ? true : undefined), 60_000).catch((err) => {
    throw new Error(`${(err as Error).message}\n${output}`);
  });

  const started = await fetch(`${origin}/api/v1/donations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fundraiser_id: campaign.id, amount_cents: 2500, donor_email: 'guest@example.test', donor_name: 'A Guest' }),
  });
  const startedBody = (await started.json()) as { data: { donation_id: string; url: string; status: string } };
  expect(started.status).toBe(201);
  expect(startedBody.data.status).toBe('pending');
  expect(startedBody.data.url).toMatch(new RegExp(`^${origin}/sandbox/checkout/cs_`));

  // The hosted page, as a browser without JavaScript sees it.
  const page = await fetch(startedBody.data.url);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('25.00 USD');
  const action = /<form method="post" action="([^"]+\/complete)"/.exec(html)?.[1];
  expect(action).toBeDefined();

  const paid = await fetch(new URL(action!, origin), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: '',
    redirect: 'manual',
  });
  expect(paid.status).toBe(303);
  expect(paid.headers.get('location')).toBe(`http://site.test/fundraisers/${campaign.slug}?donation=${startedBody.data.donation_id}`);

  const total = await until('the gift in the campaign total', async () => {
    const r = await fetch(`${origin}/api/v1/fundraisers/slug/${campaign.slug}`);
    const body = (await r.json()) as { data: { total_raised_cents: number } };
    return body.data.total_raised_cents === 2500 ? body.data.total_raised_cents : undefined;
  });
  expect(total).toBe(2500);
  expect(output).not.toMatch(/"level":(50|60)/);
}, 120_000);
