import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import request from 'supertest';
import sharp from 'sharp';
import { ConfigError } from '../../src/config';
import { LocalDiskStorage, S3Storage, type StorageBackend } from '../../src/integrations/storage';
import { closeDb, createTestApp, testConfig, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { png } from '../helpers/media';

afterAll(closeDb);

/**
 * The S3 adapter against a real S3-compatible server (s3rver, started in this process on a
 * loopback port), and the same contract against local disk.
 */
let s3: S3rver;
let endpoint: string;
const BUCKET = 'media-test';

beforeAll(async () => {
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: mkdtempSync(join(tmpdir(), 's3rver-')), configureBuckets: [{ name: BUCKET }] });
  const { port } = await s3.run();
  endpoint = `http://127.0.0.1:${port}`;
});
afterAll(() => s3.close());

const s3Env = () => ({ S3_BUCKET: BUCKET, S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER', S3_REGION: 'us-east-1' });

async function text(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString();
}

describe.each([
  ['local disk', () => new LocalDiskStorage(mkdtempSync(join(tmpdir(), 'local-store-')))],
  ['S3', () => new S3Storage({ bucket: BUCKET, region: 'us-east-1', endpoint, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' })],
] as Array<[string, () => StorageBackend]>)('storage backend: %s', (_name, make) => {
  test('when bytes and a stream are put then open reads them back whole or by range, and remove deletes them', async () => {
    const store = make();
    await store.put('uploads/abc/one.png', Buffer.from('hello world'), { contentType: 'image/png' });
    const one = await store.open('uploads/abc/one.png');
    expect(one).toMatchObject({ contentType: 'image/png', size: 11 });
    expect(await text(one!.body)).toBe('hello world');
    const part = await store.open('uploads/abc/one.png', { start: 6, end: 10 });
    expect(part!.size).toBe(11);
    expect(await text(part!.body)).toBe('world');
    await store.put('uploads/abc/two.mp4', Readable.from([Buffer.from('abc'), Buffer.from('def')]), { contentType: 'video/mp4', size: 6 });
    expect(await text((await store.open('uploads/abc/two.mp4'))!.body)).toBe('abcdef');
    await store.remove('uploads/abc/one.png');
    expect(await store.open('uploads/abc/one.png')).toBeNull();
    expect(await store.open('uploads/abc/never.png')).toBeNull();
  });

  test('when objects are put under a prefix then list answers their keys, and only theirs', async () => {
    const store = make();
    const owner = `list${Date.now()}`;
    expect(await store.list(`erasure-log/${owner}/`)).toEqual([]);
    for (const f of ['a.json', 'b.json']) await store.put(`erasure-log/${owner}/${f}`, Buffer.from('{}'), { contentType: 'application/json' });
    await store.put(`erasure-log/${owner}x/c.json`, Buffer.from('{}'), { contentType: 'application/json' });
    expect((await store.list(`erasure-log/${owner}/`)).sort()).toEqual([`erasure-log/${owner}/a.json`, `erasure-log/${owner}/b.json`]);
    await expect(store.list('erasure-log/../')).rejects.toThrow(/not a storage prefix/);
    await expect(store.list('erasure-log')).rejects.toThrow(/not a storage prefix/);
  });

  test('when a key is not one the service mints (dot segments, slashes, no extension) then the backend refuses it', async () => {
    const store = make();
    for (const key of ['../etc/passwd', 'uploads/../../x.png', 'uploads/a/b/c.png', 'uploads/a/noext', '/abs/a/b.png']) {
      await expect(store.put(key, Buffer.from('x'), { contentType: 'image/png' })).rejects.toThrow(/not a storage key/);
      await expect(store.open(key)).rejects.toThrow(/not a storage key/);
    }
  });
});

describe('uploads through the API with S3_* set', () => {
  let t: TestApp;
  let owner: TestUser;
  let f: FundraiserRow;

  beforeAll(async () => {
    t = createTestApp({ env: s3Env() });
    owner = await createUser(t.ctx.db);
    f = await createFundraiser(t.ctx.db, owner.id);
  });

  test('when an image is uploaded then it lands in the bucket and its URL serves it back through the service', async () => {
    expect(t.ctx.storage.kind).toBe('s3');
    const res = await request(t.app).post(`/api/v1/fundraisers/${f.id}/media`).set(await authHeaders(t, owner)).attach('file', await png(120, 80), 'p.png');
    expect(res.status).toBe(201);
    const key = new URL(res.body.data.url).pathname.replace(/^\/media\//, '');
    const client = (t.ctx.storage.backend as S3Storage).client;
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head).toMatchObject({ ContentType: 'image/png', ContentLength: res.body.data.bytes });
    const served = await request(t.app).get(`/media/${key}`).buffer(true).parse((r, cb) => {
      const c: Buffer[] = [];
      r.on('data', (d: Buffer) => c.push(d));
      r.on('end', () => cb(null, Buffer.concat(c)));
    });
    expect(served.status).toBe(200);
    expect(await sharp(served.body as Buffer).metadata()).toMatchObject({ width: 120, height: 80 });
    const fromBucket = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(Buffer.from(await fromBucket.Body!.transformToByteArray()).equals(served.body as Buffer)).toBe(true);
  });

  test('when a stored image is cropped then the original is read from and the crop written to the bucket', async () => {
    const up = await request(t.app).post(`/api/v1/fundraisers/${f.id}/media`).set(await authHeaders(t, owner)).attach('file', await png(100, 100), 'p.png');
    const res = await request(t.app).post('/api/v1/image-crops').set(await authHeaders(t, owner)).send({ image_url: up.body.data.url, crop: { x: 10, y: 10, width: 30, height: 20 } });
    expect(res.status).toBe(201);
    const key = new URL(res.body.data.url).pathname.replace(/^\/media\//, '');
    const obj = await (t.ctx.storage.backend as S3Storage).client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(await sharp(Buffer.from(await obj.Body!.transformToByteArray())).metadata()).toMatchObject({ width: 30, height: 20 });
  });

  test('when MEDIA_PUBLIC_URL is set then handed-out URLs use it, and only those URLs count as stored images', async () => {
    const t2 = createTestApp({ env: { ...s3Env(), MEDIA_PUBLIC_URL: 'https://cdn.example.test/m/' } });
    const res = await request(t2.app).post(`/api/v1/fundraisers/${f.id}/media`).set(await authHeaders(t2, owner)).attach('file', await png(20, 20), 'p.png');
    expect(res.body.data.url).toMatch(/^https:\/\/cdn\.example\.test\/m\/uploads\//);
    const authH = await authHeaders(t2, owner);
    const crop = (url: string) => request(t2.app).post('/api/v1/image-crops').set(authH).send({ image_url: url, crop: { x: 0, y: 0, width: 5, height: 5 } });
    expect((await crop(res.body.data.url)).status).toBe(201);
    expect((await crop(res.body.data.url.replace('https://cdn.example.test/m', 'http://api.test/media'))).status).toBe(400);
  });
});

describe('storage configuration', () => {
  test('when S3 settings come without a bucket, or with half a key pair, then start-up fails naming the variable', () => {
    expect(() => testConfig({ S3_ENDPOINT: 'http://127.0.0.1:9000' })).toThrow(new ConfigError('Invalid configuration: S3_BUCKET: required when other S3_* variables are set'));
    expect(() => testConfig({ S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'a' })).toThrow(/S3_SECRET_ACCESS_KEY/);
    expect(() => testConfig({ S3_BUCKET: 'Bad_Bucket' })).toThrow(/S3_BUCKET/);
    expect(() => testConfig({ MEDIA_PUBLIC_URL: 'not a url' })).toThrow(/MEDIA_PUBLIC_URL/);
  });
});
