import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context';

/**
 * Organization documents live in the service's storage port (local disk or the S3 bucket every
 * replica shares). Keys are `org-documents/<org id>/<random uuid>.pdf` and never leave the
 * service: clients read documents only through the routes that check who may see them (public
 * flag, or an org permission). The file name is its own random uuid, not the document id every
 * member sees, so a key cannot be rebuilt from what the API shows (a public bucket or CDN behind
 * MEDIA_PUBLIC_URL stays safe), and the /media/ route never serves this area (media module).
 */
export const documentKey = (orgId: string) => `org-documents/${orgId}/${randomUUID()}.pdf`;

/** Cap on a document, on the way in and on the way out. */
export const DOCUMENT_MAX_BYTES = 10 * 1024 * 1024;

export async function putDocument(ctx: Pick<AppContext, 'storage'>, key: string, bytes: Buffer): Promise<void> {
  await ctx.storage.put(key, bytes, { contentType: 'application/pdf', size: bytes.length });
}

export async function removeDocument(ctx: Pick<AppContext, 'storage'>, key: string): Promise<void> {
  await ctx.storage.remove(key);
}

/** The document's bytes; null when the object is gone. */
export function readDocument(ctx: Pick<AppContext, 'storage'>, key: string): Promise<Buffer | null> {
  return ctx.storage.read(key, DOCUMENT_MAX_BYTES);
}
