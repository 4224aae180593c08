import { percentageFunded } from '../fundraisers';
import type { CardRow } from './discovery.reads';

/** A FundraiserCard: the list read's shape, also used by /search's campaigns. */
export function toCard(r: CardRow) {
  const goal = Number(r.goal_amount_cents);
  const raised = Number(r.raised_cents);
  return {
    id: r.id,
    title: r.title,
    slug: r.slug,
    summary: r.summary,
    goal_amount_cents: goal,
    total_raised_cents: raised,
    percentage_funded: percentageFunded(raised, goal), // same rounding as the detail reads
    currency: r.currency,
    status: r.status,
    type: r.type,
    is_project: r.is_project,
    category: r.category_id === null ? null : String(r.category_id),
    category_name: r.category_name,
    cover_image: r.cover_image,
    cover_image_focal_x: r.cover_image_focal_x,
    cover_image_focal_y: r.cover_image_focal_y,
    cover_tint: r.cover_tint,
    location: r.location,
    end_date: r.end_date,
    donor_count: r.donor_count,
    owner: { id: r.owner_id, name: r.owner_name, avatar: r.owner_avatar, profile_slug: r.owner_profile_slug },
    created_at: new Date(r.created_at).toISOString(),
    ...(r.distance_mi === undefined ? {} : { distance_mi: Math.round(r.distance_mi * 10) / 10 }),
  };
}
