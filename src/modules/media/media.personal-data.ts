import type { PersonalDataPart } from '../define-module';

/** Uploads and crops: listed in the export; rows deleted on erasure and their files removed after commit. */
export const mediaPersonalData: PersonalDataPart = {
  columns: ['media_uploads.owner_user_id', 'image_crops.author_user_id'],
  async export(db, userId) {
    return {
      uploads: await db('media_uploads').where({ owner_user_id: userId }).select('id', 'fundraiser_id', 'kind', 'storage_key', 'content_type', 'bytes', 'created_at'),
    };
  },
  async erase(trx, a) {
    const ups = await trx('media_uploads').where({ owner_user_id: a.userId }).delete().returning('storage_key');
    const crops = await trx('image_crops').where({ author_user_id: a.userId }).delete().returning('storage_key');
    return { storageKeys: [...ups, ...crops].map((r: { storage_key: string }) => r.storage_key).filter(Boolean) };
  },
};
