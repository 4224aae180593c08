import { threadId } from 'node:worker_threads';
import request from 'supertest';
import { emit } from '../../src/events';
import { etagOf } from '../../src/http/caching';
import { h } from '../../src/modules/share-images';
import { RenderPool, RENDERS_PER_THREAD } from '../../src/modules/share-images/render-pool';
import { prerenderCampaign } from '../../src/modules/share-images/share-images.service';
import { parseConfig } from '../../src/config';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { makeDue, pendingJobs } from '../../src/jobs/admin';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { storageEnv } from '../helpers/media';

afterAll(closeDb);
afterEach(() => jest.restoreAllMocks());

let t: TestApp;
let owner: TestUser;
const QUEUE = 'share-images.render';

const binary = (req: request.Test) =>
  req.buffer(true).parse((res, cb) => {
    const c: Buffer[] = [];
    res.on('data', (d: Buffer) => c.push(d));
    res.on('end', () => cb(null, Buffer.concat(c)));
  });
const get = (path: string) => binary(request(t.app).get(`/api/v1${path}`));

const pendingRenders = (id: string) => pendingJobs(t.ctx.db, QUEUE, `${QUEUE}:${id}`);

/** Runs the dispatch and subscriber jobs, then the debounced render job as if its few seconds had passed. */
async function runRenderJob(_id: string): Promise<void> {
  await t.runJobs();
  await makeDue(t.ctx.db, QUEUE);
  await t.runJobs();
}

beforeAll(async () => {
  t = createTestApp({ env: storageEnv() });
  owner = await createUser(t.ctx.db);
});

describe('share images rendered ahead by the job worker', () => {
  test('when a live campaign is retitled, then the render job draws it in the job worker and the route serves those bytes without rendering', async () => {
    const f = await createFundraiser(t.ctx.db, owner.id, { title: 'The old title' });
    const before = await get(`/fundraisers/slug/${f.slug}/og.png`);
    expect(before.status).toBe(200);

    const patch = await request(t.app).patch(`/api/v1/fundraisers/${f.id}`).set(await authHeaders(t, owner)).send({ title: 'The new title' });
    expect(patch.status).toBe(200);
    await t.runJobs();
    const [job] = await pendingRenders(f.id);
    // Debounced: it waits a few seconds so a burst of changes renders once.
    expect(new Date(job.run_at).getTime()).toBeGreaterThan(Date.now() + 2000);

    const render = jest.spyOn(RenderPool.prototype, 'render');
    await runRenderJob(f.id);
    expect(render).toHaveBeenCalledTimes(3); // og, poster, story in the campaign's language
    expect(await pendingRenders(f.id)).toHaveLength(0);

    render.mockClear();
    for (const file of ['og.png', 'poster.png', 'story.png', 'og.png?lang=en']) {
      const res = await get(`/fundraisers/slug/${f.slug}/${file}`);
      expect(res.status).toBe(200);
      const stored = await t.ctx.cache.get<string>(`share-image:${file.slice(0, file.indexOf('.'))}:${f.slug}:${file.includes('lang') ? 'en' : '-'}`);
      expect(res.headers.etag).toBe(etagOf(Buffer.from(stored!, 'base64')));
    }
    expect(render).not.toHaveBeenCalled();
    // The job replaced the image cached before the edit (within its 30 s) with the new title's.
    expect((await get(`/fundraisers/slug/${f.slug}/og.png`)).headers.etag).not.toBe(before.headers.etag);
  });

  test('when gifts and a publish arrive together, then one render job is pending for the campaign', async () => {
    const f = await createFundraiser(t.ctx.db, owner.id);
    await t.ctx.db.transaction(async (trx) => {
      await emit(trx, 'fundraiser.published', { fundraiser_id: f.id, owner_user_id: owner.id, org_id: null });
      for (const n of [1, 2]) {
        await emit(trx, 'donation.refunded', { donation_id: `00000000-0000-4000-8000-00000000000${n}`, fundraiser_id: f.id, refunded_cents: 100, fully: true });
      }
    });
    await t.runJobs();
    expect(await pendingRenders(f.id)).toHaveLength(1);
  });

  test('when the campaign is no longer public at render time, then nothing is stored', async () => {
    const f = await createFundraiser(t.ctx.db, owner.id, { visibility: 'private' });
    expect(await prerenderCampaign(t.ctx, f.id)).toBe(0);
    expect(await t.ctx.cache.get(`share-image:og:${f.slug}:-`)).toBeUndefined();
  });

  test('when an image is not cached, then it is rendered in a worker thread, not on the main thread', async () => {
    const f = await createFundraiser(t.ctx.db, owner.id);
    const render = jest.spyOn(RenderPool.prototype, 'render');
    const res = await get(`/fundraisers/slug/${f.slug}/story.png`);
    expect(res.status).toBe(200);
    expect(render).toHaveBeenCalledTimes(1);
    const pool = render.mock.contexts[0] as RenderPool;
    expect(pool.stats.threadIds.size).toBeGreaterThan(0);
    expect(pool.stats.threadIds.has(threadId)).toBe(false);
  });
});

describe('render pool', () => {
  test('when the pool is closed, then the next render starts a new thread and succeeds', async () => {
    const pool = new RenderPool(1);
    const node = h('div', { style: { display: 'flex', width: 40, height: 20, backgroundColor: '#15803d' } });
    expect((await pool.render(node, 40, 20)).subarray(1, 4).toString()).toBe('PNG');
    await pool.close();
    expect((await pool.render(node, 40, 20)).subarray(1, 4).toString()).toBe('PNG');
    expect(pool.stats.threadIds.size).toBe(2);
    await pool.close();
  });

  test('when a thread has rendered RENDERS_PER_THREAD images, then it is retired for a fresh one and every render still succeeds', async () => {
    const pool = new RenderPool(1);
    const node = h('div', { style: { display: 'flex', width: 40, height: 20, backgroundColor: '#15803d' } });
    const renders = 2 * RENDERS_PER_THREAD + 1;
    for (let i = 0; i < renders; i++) expect((await pool.render(node, 40, 20)).subarray(1, 4).toString()).toBe('PNG');
    // What a thread keeps between renders is given back only when the thread ends (bench/memory.ts).
    expect(pool.stats.retired).toBe(2);
    expect(pool.stats.threadIds.size).toBe(3);
    expect(pool.stats.rendered).toBe(renders);
    await pool.close();
  }, 240_000);

  test('when renders arrive together while the only thread wears out, then they wait for its successor and no two threads are ever alive at once', async () => {
    const pool = new RenderPool(1);
    const node = h('div', { style: { display: 'flex', width: 40, height: 20, backgroundColor: '#15803d' } });
    const pngs = await Promise.all(Array.from({ length: 2 * RENDERS_PER_THREAD + 5 }, () => pool.render(node, 40, 20)));
    expect(pngs.every((p) => p.subarray(1, 4).toString() === 'PNG')).toBe(true);
    expect(pool.stats.retired).toBe(2);
    expect(pool.stats.peakThreads).toBe(1);
    await pool.close();
  }, 240_000);

  test('when a thread has been idle for the idle period, then it ends and the next render starts another', async () => {
    const pool = new RenderPool(1, 200);
    const node = h('div', { style: { display: 'flex', width: 40, height: 20, backgroundColor: '#15803d' } });
    await pool.render(node, 40, 20);
    await new Promise((r) => setTimeout(r, 600));
    expect(pool.stats.retired).toBe(1);
    await pool.render(node, 40, 20);
    expect(pool.stats.threadIds.size).toBe(2);
    await pool.close();
  }, 240_000);

  test('when RENDER_THREADS is out of range, then the config is refused', () => {
    expect(parseConfig({ RENDER_THREADS: '2' }).RENDER_THREADS).toBe(2);
    expect(() => parseConfig({ RENDER_THREADS: '9' })).toThrow(/RENDER_THREADS/);
  });
});
