import { collected } from '../../src/modules';
import { sourceColumns } from '../../src/modules/privacy/privacy.needles';
import { scrubCopies } from '../../src/modules/privacy/privacy.scrub';
import { closeDb, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';

const db = testDb();
afterAll(closeDb);

const needles = [
  { value: 'Zelda Quuxprobe', kind: 'identifier' as const },
  { value: 'a note zqprobe that others quoted', kind: 'text' as const },
];
const placeholders = { identifier: 'a former member', text: '[removed]' };

describe('privacy: the sweep of copies', () => {
  it('when a table added tomorrow holds copies in text, json, jsonb, text[] and bytea, then each is replaced in its own type and nothing else changes', async () => {
    await db.raw(`create table scrub_probe (id int primary key, amount_cents bigint, t text, j json, jb jsonb, arr text[], b bytea, png bytea)`);
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0x5a]);
    await db('scrub_probe').insert([
      {
        id: 1, amount_cents: 1500, t: 'from Zelda Quuxprobe: “a note zqprobe that others quo…”', j: JSON.stringify({ donor_name: 'Zelda Quuxprobe', n: 1 }),
        jb: { 'Zelda Quuxprobe': 'a note zqprobe that others quoted', amount_cents: 1500 }, arr: ['x', 'Zelda Quuxprobe'],
        b: Buffer.from('{"message":"a note zqprobe that others quoted"}'), png: binary,
      },
      { id: 2, amount_cents: 7, t: 'nobody here', j: '{"a": 1}', jb: { a: 1 }, arr: ['x'], b: Buffer.from('plain'), png: binary },
    ]);
    const changed = await db.transaction((trx) => scrubCopies(trx, needles, placeholders, sourceColumns(collected.personalData)));
    expect(changed).toBeGreaterThanOrEqual(1);
    const rows = await db('scrub_probe').orderBy('id');
    expect(rows[0]).toEqual({
      id: 1, amount_cents: 1500, t: 'from a former member: “[removed]…”', j: { donor_name: 'a former member', n: 1 },
      jb: { 'Zelda Quuxprobe': '[removed]', amount_cents: 1500 }, arr: ['x', 'a former member'],
      b: Buffer.from('{"message":"[removed]"}'), png: binary,
    });
    expect(rows[1]).toEqual({ id: 2, amount_cents: 7, t: 'nobody here', j: { a: 1 }, jb: { a: 1 }, arr: ['x'], b: Buffer.from('plain'), png: binary });
  });

  it("when another person's own row in a declared column holds the same words, then it stays theirs", async () => {
    const other = await createUser(db, { name: 'Zelda Quuxprobe' });
    await db.transaction((trx) => scrubCopies(trx, needles, placeholders, sourceColumns(collected.personalData)));
    expect((await db('users').where({ id: other.id }).first()).name).toBe('Zelda Quuxprobe');
  });
});
