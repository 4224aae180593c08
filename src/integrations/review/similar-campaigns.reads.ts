import type { Db } from '../../db/knex';

/**
 * A declared view (read only) of the fundraisers module's campaigns for the rules reviewer: an
 * integration cannot import a module, and the duplicate check needs pg_trgm over all campaigns
 * in one indexed query.
 */

export interface SimilarCampaign {
  id: string;
  owner_user_id: string;
  title_similarity: number;
  story_similarity: number | null;
}

/**
 * Campaigns whose title is close to `title` (pg_trgm, index-backed `%` then similarity): the
 * owner's own non-deleted campaigns, and other owners' submitted or published ones. The story is
 * compared only on those candidates and on the owner's own campaigns (bounded work).
 */
export async function findSimilarCampaigns(
  db: Db,
  input: { excludeId: string | null; ownerUserId: string; title: string; storyText: string | null },
): Promise<SimilarCampaign[]> {
  const title = input.title.toLowerCase();
  const story = input.storyText ? input.storyText.toLowerCase().slice(0, 2000) : null;
  const r = await db.raw(
    `select id, owner_user_id,
            similarity(lower(title), cast(? as text)) as title_similarity,
            case when cast(? as text) is null or story_html is null then null
                 else similarity(left(lower(regexp_replace(story_html, '<[^>]*>', ' ', 'g')), 2000), cast(? as text)) end
              as story_similarity
       from fundraisers
      where deleted_at is null
        and (cast(? as uuid) is null or id <> cast(? as uuid))
        and (
          (lower(title) % cast(? as text) and (owner_user_id = ? or status in ('pending','active','paused','ended')))
          or owner_user_id = ?
        )
      order by title_similarity desc
      limit 20`,
    [title, story, story, input.excludeId, input.excludeId, title, input.ownerUserId, input.ownerUserId],
  );
  return r.rows.map((row: Record<string, unknown>) => ({
    id: row.id as string,
    owner_user_id: row.owner_user_id as string,
    title_similarity: Number(row.title_similarity),
    story_similarity: row.story_similarity === null ? null : Number(row.story_similarity),
  }));
}
