import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a webhook may reach (docs/decisions/0017-outbound-webhooks.md). Link-local, metadata, unspecified,
 * multicast and reserved addresses are never reachable; loopback and private ranges only with
 * WEBHOOK_ALLOW_PRIVATE=true. The sender connects to the very address checked here (see
 * webhook-endpoints.send.ts), so a DNS answer that changes between check and connect cannot
 * swap it.
 */
const never = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['100.100.100.200', 32], // Alibaba Cloud metadata
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) never.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['fe80::', 10], // link-local
  ['fd00:ec2::254', 128], // AWS metadata over IPv6
  ['ff00::', 8], // multicast
  ['2001:db8::', 32],
] as const) never.addSubnet(net, bits, 'ipv6');

const privateRanges = new BlockList();
for (const [net, bits] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['198.18.0.0', 15],
] as const) privateRanges.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::1', 128],
  ['fc00::', 7], // unique local
] as const) privateRanges.addSubnet(net, bits, 'ipv6');

export type AddressClass = 'public' | 'private' | 'forbidden';

/** The IPv4 address an IPv6 one carries (IPv4-mapped, NAT64), so its v4 rules apply. */
function embeddedV4(addr: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
  if (m) return m[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(addr);
  if (!hex) return null;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

export function classify(address: string): AddressClass {
  const v4 = isIP(address) === 4 ? address : embeddedV4(address);
  const [addr, family] = v4 ? [v4, 'ipv4' as const] : [address, 'ipv6' as const];
  if (isIP(addr) === 0) return 'forbidden';
  if (never.check(addr, family)) return 'forbidden';
  if (privateRanges.check(addr, family)) return 'private';
  return 'public';
}

export interface Vetted {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Why a URL is refused: a sentence for the API's message and the delivery log. */
export class UrlRefused extends Error {
  constructor(
    message: string,
    /** A resolver failure may pass on a later attempt; a refused address will not. */
    readonly transient = false,
  ) {
    super(message);
  }
}

/** The guard's settings from the configuration (NODE_ENV, WEBHOOK_ALLOW_PRIVATE). */
export function guardOptions(config: { NODE_ENV: string; WEBHOOK_ALLOW_PRIVATE: boolean }): GuardOptions {
  return { production: config.NODE_ENV === 'production', allowPrivate: config.WEBHOOK_ALLOW_PRIVATE };
}

export interface GuardOptions {
  production: boolean;
  allowPrivate: boolean;
  /** How long name resolution may take. */
  lookupTimeoutMs?: number;
}

async function resolve(host: string, timeoutMs: number): Promise<{ address: string; family: number }[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UrlRefused(`${host} did not resolve in time`, true)), timeoutMs);
  });
  try {
    return await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
  } catch (err) {
    if (err instanceof UrlRefused) throw err;
    throw new UrlRefused(`${host} does not resolve`, true);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Checks a webhook URL and answers the address to connect to. Every address the name resolves
 * to must pass, so a name that also points somewhere private is refused, not tried at random.
 */
export async function vetUrl(raw: string, opts: GuardOptions): Promise<Vetted> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused('The URL is not valid');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UrlRefused('The URL must use https (or http outside production)');
  if (url.username || url.password) throw new UrlRefused('The URL must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const answers = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host, opts.lookupTimeoutMs ?? 3000);
  if (answers.length === 0) throw new UrlRefused(`${host} does not resolve`, true);
  let allPrivate = true;
  for (const a of answers) {
    const cls = classify(a.address);
    if (cls === 'forbidden' || (cls === 'private' && !opts.allowPrivate)) {
      throw new UrlRefused(`${host} is or resolves to a loopback, private, link-local or metadata address`);
    }
    if (cls !== 'private') allPrivate = false;
  }
  // Plain http only outside production, or (with WEBHOOK_ALLOW_PRIVATE) to a private receiver.
  if (url.protocol === 'http:' && opts.production && !(opts.allowPrivate && allPrivate)) {
    throw new UrlRefused('The URL must use https in production');
  }
  const first = answers[0];
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
