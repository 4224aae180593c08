import type { PersonalDataPart } from '../define-module';

/** Webhook endpoints the account made: exported without secrets; deleted (with their deliveries) on erasure. */
export const webhookEndpointsPersonalData: PersonalDataPart = {
  columns: ['webhook_endpoints.user_id'],
  authored: [{ table: 'webhook_endpoints', by: 'user_id', texts: ['description'] }],
  async export(db, userId) {
    return {
      webhook_endpoints: await db('webhook_endpoints').where({ user_id: userId }).select('id', 'organization_id', 'url', 'events', 'description', 'status', 'created_at'),
    };
  },
  async erase(trx, a) {
    // An organization's endpoint belongs to the organization: it stays, disabled (the privacy
    // module disabled it when erasure was requested) and no longer names its creator's text.
    await trx('webhook_endpoints').where({ user_id: a.userId }).whereNull('organization_id').delete();
    await trx('webhook_endpoints').where({ user_id: a.userId }).update({ description: null });
  },
};
