import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_KEYS, ConfigError, parseConfig } from '../../src/config';

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

function errorOf(env: Record<string, string>): string {
  try {
    parseConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe('configuration', () => {
  test('when nothing is set then the documented defaults apply', () => {
    const c = parseConfig({});
    expect(c).toEqual(
      expect.objectContaining({
        PORT: 3000,
        HOST: '0.0.0.0',
        PUBLIC_URL: 'http://localhost:3000',
        BASE_URL: 'http://localhost:3000/api/v1',
        SITE_URL: 'http://localhost:5173',
        NODE_ENV: 'development',
        MAIL_FROM: 'no-reply@localhost',
        IDP: 'local',
        RATE_LIMIT_PREFIX: 'rl:',
      }),
    );
    for (const unset of ['DATABASE_URL', 'REDIS_URL', 'TRUST_PROXY', 'SMTP_URL', 'STRIPE_SECRET_KEY', 'CAPTCHA_SECRET']) {
      expect(c[unset as keyof typeof c]).toBeUndefined();
    }
  });

  test('when IDP=cognito lacks its pool settings then one line names the first missing one', () => {
    expect(errorOf({ IDP: 'cognito', COGNITO_REGION: 'eu-west-1' })).toBe(
      'Invalid configuration: COGNITO_USER_POOL_ID: required when IDP=cognito',
    );
    expect(() =>
      parseConfig({ IDP: 'cognito', COGNITO_REGION: 'eu-west-1', COGNITO_USER_POOL_ID: 'p', COGNITO_CLIENT_ID: 'c' }),
    ).not.toThrow();
  });

  test('when a pgBackRest repository or configuration is named without a stanza then one line asks for PGBACKREST_STANZA', () => {
    expect(errorOf({ BACKUP_REPO_PATH: '/var/lib/pgbackrest' })).toBe(
      'Invalid configuration: PGBACKREST_STANZA: required when BACKUP_REPO_PATH is set (the pgBackRest stanza)',
    );
    expect(errorOf({ PGBACKREST_CONFIG: '/etc/pgbackrest.conf' })).toBe(
      'Invalid configuration: PGBACKREST_STANZA: required when PGBACKREST_CONFIG is set (the pgBackRest stanza)',
    );
    expect(errorOf({ PGBACKREST_STANZA: 'main; rm -rf /' })).toBe('Invalid configuration: PGBACKREST_STANZA: must be a pgBackRest stanza name');
    expect(() => parseConfig({ PGBACKREST_STANZA: 'main', PGBACKREST_CONFIG: '/etc/pgbackrest.conf' })).not.toThrow();
  });

  test('when a social provider is half configured then one line names the missing variable', () => {
    expect(errorOf({ OAUTH_PROVIDER_B_ISSUER: 'https://id.example.org', OAUTH_PROVIDER_B_CLIENT_ID: 'x' })).toBe(
      'Invalid configuration: OAUTH_PROVIDER_B_CLIENT_SECRET: required when provider_b is partly configured',
    );
  });

  test('when PUBLIC_URL is set then the base URL is derived from it; empty strings mean unset', () => {
    const c = parseConfig({ PORT: '8080', PUBLIC_URL: 'https://api.example.org/', SMTP_URL: '' });
    expect(c.BASE_URL).toBe('https://api.example.org/api/v1');
    expect(c.SMTP_URL).toBeUndefined();
    expect(parseConfig({ PORT: '8080' }).PUBLIC_URL).toBe('http://localhost:8080');
  });

  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['SMTP_URL', 'http://x'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'localhost:6379'],
    ['PUBLIC_URL', 'not a url'],
    ['NODE_ENV', 'staging'],
    ['IDP', 'auth0'],
    ['STRIPE_SECRET_KEY', 'pk_live_123'],
    ['STRIPE_WEBHOOK_SECRET', 'secret'],
    ['OAUTH_PROVIDER_A_ISSUER', 'nope'],
    ['CARD_SHARE_RATE_LIMIT', '0'],
    ['RATE_LIMIT_PREFIX', 'has space'],
  ])('when %s=%s then one line naming the variable', (name, value) => {
    const msg = errorOf({ [name]: value });
    expect(msg.split('\n')).toHaveLength(1);
    expect(msg).toContain(name);
  });

  test('when .env.example is read then it lists every variable of the config, with valid values', () => {
    const text = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8');
    const entries = Object.fromEntries(
      text
        .split('\n')
        .filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const decisions = [
      'PORT', 'HOST', 'PUBLIC_URL', 'SITE_URL', 'DATABASE_URL', 'REDIS_URL', 'TRUST_PROXY', 'NODE_ENV', 'SMTP_URL',
      'MAIL_FROM', 'IDP', 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_API_URL', 'CAPTCHA_SECRET',
      'CAPTCHA_VERIFY_URL', 'OAUTH_PROVIDER_A_ISSUER', 'OAUTH_PROVIDER_A_CLIENT_ID', 'OAUTH_PROVIDER_A_CLIENT_SECRET',
      'OAUTH_PROVIDER_B_ISSUER', 'OAUTH_PROVIDER_B_CLIENT_ID', 'OAUTH_PROVIDER_B_CLIENT_SECRET',
    ];
    expect(Object.keys(entries).sort()).toEqual([...new Set([...decisions, ...CONFIG_KEYS])].sort());
    // The example, as written, is a valid configuration (empty = unset).
    expect(() => parseConfig(entries)).not.toThrow();
  });

  test('when the server starts with PORT=abc then it exits non-zero with one line naming PORT on stderr', () => {
    const r = spawnSync(TSX, ['src/server.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: 'abc' },
      encoding: 'utf8',
      timeout: 120_000, // tsx compiles on start; a busy machine takes many times longer
    });
    expect(r.status).not.toBe(0);
    expect(r.status).not.toBeNull();
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/PORT/);
    expect(r.stdout).toBe('');
  });
});
