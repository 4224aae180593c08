import jwksRsa from 'jwks-rsa';

/**
 * A kid → PEM lookup over a JWKS through jwks-rsa (cached; an unknown kid refetches, so key
 * rotation is picked up). `fetcher` lets the local provider hand over the same document its
 * JWKS endpoint serves without calling itself over HTTP.
 */
export function jwksKeyLookup(
  jwksUri: string,
  fetcher?: () => Promise<{ keys: unknown[] }>,
): (kid: string) => Promise<string | null> {
  const client = jwksRsa({
    jwksUri,
    cache: true,
    cacheMaxAge: 10 * 60_000,
    rateLimit: !fetcher,
    jwksRequestsPerMinute: 10,
    ...(fetcher ? { fetcher: async () => fetcher() } : {}),
  });
  return async (kid) => {
    try {
      return (await client.getSigningKey(kid)).getPublicKey();
    } catch {
      return null;
    }
  };
}
