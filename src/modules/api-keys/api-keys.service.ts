// CONTRACT STUB (owner: API keys work). Replace the body, keep the signature.
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError } from '../../http/errors';

/** Resolves `ak_live_...`; throws 401 `Invalid API key` for unknown, revoked, expired or inactive owner. */
export async function resolveApiKey(_ctx: AppContext, _token: string): Promise<Actor> {
  throw new ApiError(401, 'Invalid API key', 'The API key is not valid');
}
