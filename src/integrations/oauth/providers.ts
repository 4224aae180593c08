import { custom, Issuer, type BaseClient } from 'openid-client';
import type { Config } from '../../config';

export const OAUTH_PROVIDERS = ['provider_a', 'provider_b'] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

export interface ProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** The provider's settings, or null when any of its three variables is unset (the route answers 503). */
export function providerSettings(config: Config, provider: OAuthProvider): ProviderSettings | null {
  const p = provider === 'provider_a' ? 'A' : 'B';
  const issuer = config[`OAUTH_PROVIDER_${p}_ISSUER`];
  const clientId = config[`OAUTH_PROVIDER_${p}_CLIENT_ID`];
  const clientSecret = config[`OAUTH_PROVIDER_${p}_CLIENT_SECRET`];
  if (!issuer || !clientId || !clientSecret) return null;
  return { issuer, clientId, clientSecret };
}

export function callbackUrl(config: Config): string {
  return `${config.BASE_URL}/idp/oauth/callback`;
}

export class ProviderUnavailableError extends Error {}

// Discovery documents change rarely: one discovery per issuer/client per process. A failed
// discovery is not cached, so the next request retries it.
const clients = new Map<string, Promise<BaseClient>>();

const HTTP_TIMEOUT_MS = 5_000;

/** An openid-client Client for the provider, from the issuer's discovery document. */
export async function clientFor(config: Config, settings: ProviderSettings): Promise<BaseClient> {
  const key = `${settings.issuer}|${settings.clientId}|${callbackUrl(config)}`;
  let pending = clients.get(key);
  if (!pending) {
    pending = (async () => {
      Issuer[custom.http_options] = (_url, options) => ({ ...options, timeout: HTTP_TIMEOUT_MS });
      const issuer = await Issuer.discover(settings.issuer);
      const client = new issuer.Client({
        client_id: settings.clientId,
        client_secret: settings.clientSecret,
        redirect_uris: [callbackUrl(config)],
        response_types: ['code'],
      });
      client[custom.http_options] = (_url, options) => ({ ...options, timeout: HTTP_TIMEOUT_MS });
      return client;
    })();
    clients.set(key, pending);
    pending.catch(() => clients.delete(key));
  }
  try {
    return await pending;
  } catch (err) {
    throw new ProviderUnavailableError(`OpenID discovery failed for ${settings.issuer}: ${(err as Error).message}`);
  }
}

/** Tests start a new provider per file; drop what was discovered. */
export function forgetDiscoveredClients(): void {
  clients.clear();
}
