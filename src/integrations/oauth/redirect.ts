// The `redirect` rules of the spec ("Account and session", rule 1): the value must start with a
// single '/'; a full URL on the site is reduced to its path (and query); anything else ('//host',
// '/\host', another host, another scheme, garbage) becomes '/'. The result is always a path that
// is safe to append to SITE_URL.

export const MAX_REDIRECT_LENGTH = 2048;

const PLACEHOLDER = 'http://redirect.invalid';

function pathAndQuery(u: URL): string {
  // Browsers read a leading '//' in a Location path as a host; collapse it.
  const path = u.pathname.replace(/^\/{2,}/, '/');
  return `${path}${u.search}`;
}

function relative(value: string): string {
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  // WHATWG parsing, as a browser would do it: strips tabs/newlines and reads '\' as '/', so a
  // value that a browser would resolve to another host is caught here.
  let u: URL;
  try {
    u = new URL(value, PLACEHOLDER);
  } catch {
    return '/';
  }
  if (u.origin !== PLACEHOLDER) return '/';
  return pathAndQuery(u);
}

/** `siteUrl` is config.SITE_URL (no trailing slash; may carry a base path). */
export function sanitizeRedirect(raw: unknown, siteUrl: string): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_REDIRECT_LENGTH) return '/';
  const value = raw.trim();
  if (value.startsWith('/')) return relative(value);
  let u: URL;
  let site: URL;
  try {
    u = new URL(value);
    site = new URL(siteUrl);
  } catch {
    return '/';
  }
  if (u.origin !== site.origin || u.username || u.password) return '/';
  const base = site.pathname.replace(/\/+$/, '');
  if (base && u.pathname !== base && !u.pathname.startsWith(`${base}/`)) return '/';
  const rest = u.pathname.slice(base.length) || '/';
  return relative(`${rest}${u.search}`);
}
