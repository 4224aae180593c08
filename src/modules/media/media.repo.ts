import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export interface MediaUploadRow {
  id: string;
  fundraiser_id: string;
  owner_user_id: string;
  kind: 'image' | 'video';
  storage_key: string;
  content_type: string;
  bytes: number;
  width: number | null;
  height: number | null;
  created_at: Date;
}

export interface CropRow {
  id: string;
  author_user_id: string;
  original_key: string;
  storage_key: string;
  x: number;
  y: number;
  width: number;
  height: number;
  created_at: Date;
}

export async function insertUpload(db: Q, row: Omit<MediaUploadRow, 'id' | 'created_at'>): Promise<MediaUploadRow> {
  const [out] = await db('media_uploads').insert(row).returning('*');
  return out as MediaUploadRow;
}

/** Who uploaded the object stored under `key` (null for objects not uploaded through the API). */
export async function uploaderOf(db: Q, key: string): Promise<string | null> {
  const row = await db('media_uploads').where({ storage_key: key }).first('owner_user_id');
  return (row?.owner_user_id as string | undefined) ?? null;
}

export async function insertCrop(db: Q, row: Omit<CropRow, 'id' | 'created_at'>): Promise<CropRow> {
  const [out] = await db('image_crops').insert(row).returning('*');
  return out as CropRow;
}

export async function cropByKey(db: Q, key: string): Promise<CropRow | undefined> {
  return db('image_crops').where({ storage_key: key }).first();
}

/** Crops of one original, oldest first; only `authorId`'s when given. */
export async function cropsOf(db: Q, originalKey: string, authorId: string | null): Promise<CropRow[]> {
  const q = db('image_crops').where({ original_key: originalKey });
  if (authorId) q.andWhere({ author_user_id: authorId });
  return q.orderBy([{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }]).limit(100);
}

/** Whether `userId` authored any crop of the original. */
export async function authoredCropOf(db: Q, originalKey: string, userId: string): Promise<boolean> {
  const row = await db('image_crops').where({ original_key: originalKey, author_user_id: userId }).first('id');
  return Boolean(row);
}

/** The campaign's uploads among `ids` (ids of other campaigns are left out), locked for removal. */
export async function uploadsOfFundraiser(trx: Knex.Transaction, fundraiserId: string, ids: string[]): Promise<MediaUploadRow[]> {
  if (ids.length === 0) return [];
  return trx('media_uploads').where({ fundraiser_id: fundraiserId }).whereIn('id', ids).forUpdate();
}

/** The campaign's upload stored under one of `keys`. */
export async function uploadsByKeys(trx: Knex.Transaction, fundraiserId: string, keys: string[]): Promise<MediaUploadRow[]> {
  if (keys.length === 0) return [];
  return trx('media_uploads').where({ fundraiser_id: fundraiserId }).whereIn('storage_key', keys).forUpdate();
}

export async function deleteUploads(trx: Knex.Transaction, ids: string[]): Promise<void> {
  if (ids.length) await trx('media_uploads').whereIn('id', ids).delete();
}
