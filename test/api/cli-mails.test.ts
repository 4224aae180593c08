import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { commands } from '../../src/cli/commands';
import { closeDb, createTestApp } from '../helpers/app';
import { createUser } from '../helpers/auth';

afterAll(closeDb);

const t = createTestApp();
const run = (...args: string[]) => commands.mails!.run(t.ctx.db, args, t.ctx.config);
const forgot = (email: string) => request(t.app).post('/api/v1/idp/forgot-password').send({ email });
const outbox = (email: string) => t.ctx.db('mail_outbox').where({ to: email }).orderBy('created_at', 'desc');
const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)?.[1];

describe('operator CLI: mails <email> [count]', () => {
  test('when an account asked for reset codes then mails prints the newest first with subject, date and the code in the text', async () => {
    const u = await createUser(t.ctx.db);
    expect((await forgot(u.email)).status).toBe(200);
    expect((await forgot(u.email)).status).toBe(200);
    const rows = await outbox(u.email);
    expect(rows).toHaveLength(2);
    const [newest, older] = rows.map((r: { text: string }) => codeIn(r.text)!);

    const out = await run(u.email.toUpperCase());
    expect(out.split('\n')[0]).toBe(`2 mail(s) to ${u.email.toUpperCase()}, newest first`);
    const blocks = out.split(/\n(?==== )/).slice(1);
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toMatch(/^=== \d{4}-\d\d-\d\dT[\d:.]+Z {2}\[queued\] {2}Your password reset code\n/);
    expect(blocks[0]).toContain(newest);
    expect(blocks[1]).toContain(older);

    const one = await run(u.email, '1');
    expect(one).toContain(newest);
    expect(one).not.toContain(older);
  });

  test('when no mail went to the address then one line saying so', async () => {
    expect(await run('nobody-at-all@example.test')).toBe('no mail to nobody-at-all@example.test');
  });

  test('when the address or count is bad then a usage error', async () => {
    await expect(run()).rejects.toThrow(/give the email address/);
    await expect(run('not-an-address')).rejects.toThrow(/give the email address/);
    for (const n of ['0', '51', 'two', '1.5']) await expect(run('a@example.test', n)).rejects.toThrow(/count must be a whole number from 1 to 50/);
  });

  test('when run as a process then it prints the mail with its code and exits 0', async () => {
    const u = await createUser(t.ctx.db);
    await forgot(u.email);
    const code = codeIn((await outbox(u.email))[0].text)!;
    const cwd = path.resolve(__dirname, '../..');
    const env = { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL, DATABASE_DIRECT_URL: process.env.TEST_DIRECT_DATABASE_URL, LOG_LEVEL: 'silent' };
    const ok = await promisify(execFile)(path.join(cwd, 'node_modules/.bin/tsx'), ['src/cli/admin.ts', 'mails', u.email], { cwd, env });
    expect(ok.stdout).toContain('Your password reset code');
    expect(ok.stdout).toContain(code);
  }, 60_000);
});
