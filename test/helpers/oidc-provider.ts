// A real OpenID Connect provider (oidc-provider v7) for social sign-in tests, listening on
// 127.0.0.1 with a random port. Its interaction step signs in `nextLogin` at once (no forms),
// grants the requested scopes, or answers the error set in `nextError`.
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// oidc-provider v7 is CommonJS without bundled types.
const { Provider } = require('oidc-provider') as { Provider: new (issuer: string, config: object) => any };

export interface TestAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, TestAccount>;
  /** Who the next interaction signs in. */
  nextLogin: string | null;
  /** When set, the next interaction ends with this OAuth error instead (e.g. access_denied). */
  nextError: string | null;
  close(): Promise<void>;
}

export async function startOidcProvider(opts: {
  redirectUri: string;
  clientId?: string;
  clientSecret?: string;
  /** false (default): scope claims (email, name) are in the ID token, as most social providers do. */
  claimsOnlyFromUserinfo?: boolean;
}): Promise<TestOidcProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const harness: TestOidcProvider = {
    issuer,
    clientId: opts.clientId ?? 'test-client',
    clientSecret: opts.clientSecret ?? 'test-client-secret-0123456789abcdef',
    accounts: new Map(),
    nextLogin: null,
    nextError: null,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: harness.clientId,
        client_secret: harness.clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [{ ...signingKey, kid: 'test-key', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: ['oidc-test-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    ttl: { AccessToken: 3600, AuthorizationCode: 60, Grant: 3600, IdToken: 3600, Interaction: 600, Session: 3600 },
    conformIdTokenClaims: opts.claimsOnlyFromUserinfo ?? false,
    features: { devInteractions: { enabled: false } },
    pkce: { methods: ['S256'], required: () => true },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, id: string) => {
      const account = harness.accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ ...account }) };
    },
  });
  // Quiet: the harness runs over http on 127.0.0.1 on purpose.
  provider.on('server_error', () => undefined);
  const oidc = provider.callback();

  async function interaction(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    let result: object;
    if (harness.nextError) {
      result = { error: harness.nextError, error_description: 'refused by the test' };
      harness.nextError = null;
    } else if (details.prompt.name === 'login') {
      if (!harness.nextLogin) throw new Error('test OIDC provider: nextLogin is not set');
      result = { login: { accountId: harness.nextLogin } };
    } else {
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
      const missing = details.prompt.details;
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      result = { consent: { grantId: await grant.save() } };
    }
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
  }

  server.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      interaction(req, res).catch((err: Error) => {
        res.statusCode = 500;
        res.end(err.message);
      });
    } else {
      oidc(req, res);
    }
  });
  return harness;
}

/** Minimal cookie jar for one origin (name=value pairs from Set-Cookie; deletions honoured). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(setCookie: string[] | string | undefined): void {
    const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
    for (const line of list) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => {
        const [k, v] = a.trim().split('=');
        return (k.toLowerCase() === 'expires' && new Date(v).getTime() <= Date.now()) || (k.toLowerCase() === 'max-age' && Number(v) <= 0);
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * Follows the provider's redirects from the authorization URL (login and consent interactions
 * included) until it redirects to `redirectUri`; returns that final URL (with code/state or error).
 */
export async function followProviderToCallback(authorizationUrl: string, redirectUri: string): Promise<URL> {
  const jar = new CookieJar();
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(redirectUri)) return new URL(url);
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.store(res.headers.getSetCookie());
    const location = res.headers.get('location');
    if (!location) throw new Error(`provider stopped at ${url}: ${res.status} ${await res.text()}`);
    url = new URL(location, url).toString();
  }
  throw new Error('provider redirected too many times');
}
