import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Vetted } from './url-guard';

/** A 2xx within this long succeeds (docs/decisions/0017-outbound-webhooks.md). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** The receiver's answer is read only this far: we keep the status, not the body. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/** A resolver that answers only the vetted address, so the connection goes where the check looked. */
function pinnedLookup(target: Vetted): LookupFunction {
  return ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

/**
 * POSTs one signed body to the vetted address: no redirects followed (a 3xx is a failure), no
 * pooled connection reused, the whole exchange bounded by `timeoutMs`.
 */
export function postOnce(target: Vetted, headers: Record<string, string>, body: string, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<SendResult> {
  const { url } = target;
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = mod.request({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      agent: false,
      lookup: pinnedLookup(target),
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'crowdfunding-webhooks/1' },
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, statusCode: null, error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('response', (res) => {
      const code = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      const done = () => finish({ ok: code >= 200 && code < 300, statusCode: code, error: code >= 200 && code < 300 ? null : `answered ${code}` });
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    req.on('error', (err) => finish({ ok: false, statusCode: null, error: err.message.slice(0, 500) }));
    req.end(body);
  });
}
