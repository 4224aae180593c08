import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config';

/**
 * A minimal local store for organization documents until the media issue's storage port exists.
 * Files live under DATA_DIR/documents/, outside DATA_DIR/uploads (which the media issue serves
 * publicly under /media/): a private document must only ever be read through org admin.
 */
const root = (config: Pick<Config, 'DATA_DIR'>) => path.resolve(config.DATA_DIR, 'documents');

/** Keys are `org/<uuid>.pdf`, chosen by the service, never by the client. */
const KEY = /^org\/[0-9a-f-]{36}\.pdf$/;

function fileOf(config: Pick<Config, 'DATA_DIR'>, key: string): string {
  if (!KEY.test(key)) throw new Error(`not a document key: ${key}`);
  return path.join(root(config), key);
}

export async function putDocument(config: Pick<Config, 'DATA_DIR'>, key: string, bytes: Buffer): Promise<void> {
  const file = fileOf(config, key);
  await mkdir(path.dirname(file), { recursive: true });
  // Written aside and renamed, so a reader never sees half a file.
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, bytes);
  await rename(tmp, file);
}

export async function removeDocument(config: Pick<Config, 'DATA_DIR'>, key: string): Promise<void> {
  await rm(fileOf(config, key), { force: true });
}

/** The document's bytes (at most the upload cap, 10 MB); null when the file is gone. */
export async function readDocument(config: Pick<Config, 'DATA_DIR'>, key: string): Promise<Buffer | null> {
  try {
    return await readFile(fileOf(config, key));
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return null;
    throw err;
  }
}
