import { emit } from '../../events';
import type { PersonalDataPart } from '../define-module';

/**
 * The account's campaigns: exported; on erasure unpublished (paused) and soft-deleted, their
 * beneficiary contact removed. Their gifts and ledger stay. `reviewed_by` names staff acting
 * for the platform, not personal data of the campaign.
 */
export const fundraisersPersonalData: PersonalDataPart = {
  columns: ['fundraisers.owner_user_id'],
  async export(db, userId) {
    return {
      campaigns: await db('fundraisers').where({ owner_user_id: userId }).select('id', 'org_id', 'title', 'slug', 'summary', 'story_html', 'goal_amount_cents',
        'currency', 'status', 'visibility', 'cover_image', 'images', 'video_url', 'location_label', 'beneficiary_name', 'beneficiary_contact',
        'raised_cents', 'deleted_at', 'created_at'),
    };
  },
  async erase(trx, a) {
    const gone = await trx('fundraisers')
      .where({ owner_user_id: a.userId })
      .whereNull('org_id')
      .whereNull('deleted_at')
      .select('id');
    await trx('fundraisers')
      .where({ owner_user_id: a.userId })
      .whereNull('org_id')
      .update({
        status: trx.raw(`case when status in ('active','pending') then 'paused' else status end`),
        visibility: 'unlisted', beneficiary_contact: null, deleted_at: trx.raw('coalesce(deleted_at, now())'), updated_at: trx.fn.now(),
      });
    // A campaign going away ends what depends on it (monthly gifts to it stop).
    for (const { id } of gone) await emit(trx, 'fundraiser.updated', { fundraiser_id: id, fields: ['deleted_at'] });
  },
};
