import { ApiError } from '../../http/errors';

/** Pieces both org-admin route tables use. */
export const page = (limit: number, offset: number, total: number) => ({ limit, offset, total });
export const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** A status filter outside its values answers the spec's 400 with `allowed`. */
export function statusFilter<T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || value === '') return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ApiError(400, 'Invalid status', `status must be one of ${allowed.join(', ')}`, { allowed: [...allowed] });
}

export const ADMIN_DOC = 'Org admin: `{slug}` must match `^[a-z0-9][a-z0-9-]{0,254}$`; an unknown or malformed slug answers 404 `Organization not found` (never 403).';
