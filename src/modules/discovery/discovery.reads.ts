/**
 * Read-only view for the campaign lists (GET /fundraisers, search, cities). Foreign tables it reads:
 * - fundraisers, fundraiser_translations (fundraisers): listable campaigns, filtered, ranked and
 *   paged in SQL, shown in the reader's language with their totals counters;
 * - users (idp): each card's owner (name, avatar, profile slug).
 * The page of ids, its total and the display joins are one round trip, which is why they stay
 * together here rather than going through the fundraisers module's index.
 */
import type { Knex } from 'knex';
import { queryRows, type Db } from '../../db/knex';
import { totalsColumns, totalsFromRow, type Lang } from '../fundraisers';
import type { StatusFilter } from './discovery.params';

/**
 * The list base filter. It is, word for word, the predicate of the partial indexes of migration
 * 20261122050100, so the planner can use them: public, not deleted, active or ended.
 */
const LISTABLE = `f.deleted_at is null and f.visibility = 'public' and f.status in ('active','ended')`;
const LIVE = `f.status = 'active' and (f.end_date is null or f.end_date >= current_date)`;
const CLOSED = `(f.status = 'ended' or (f.status = 'active' and f.end_date < current_date))`;
const EARTH_RADIUS_MI = 3958.7613;

export interface ListFilter {
  status: StatusFilter;
  categoryIds: number[] | null; // null = any category
  q: string | null;
  projects: boolean | null;
  sort: 'raised' | 'newest';
  lang: Lang | null;
  limit: number;
  offset: number;
  near: { lat: number; lng: number; radiusMi: number } | null;
}

export interface CardRow {
  id: string;
  title: string;
  slug: string;
  summary: string | null;
  goal_amount_cents: number;
  raised_cents: number;
  currency: string;
  status: 'active' | 'ended';
  type: 'personal' | 'for_others' | 'charity';
  is_project: boolean;
  category_id: number | null;
  category_name: string | null;
  cover_image: string | null;
  cover_image_focal_x: number | null;
  cover_image_focal_y: number | null;
  cover_tint: string | null;
  location: string | null;
  end_date: string | null;
  donor_count: number;
  owner_id: string;
  owner_name: string | null;
  owner_avatar: string | null;
  owner_profile_slug: string | null;
  created_at: Date;
  distance_mi?: number;
}

// websearch_to_tsquery never raises on user input (quotes, & | ! :* are plain text to it); the
// four configurations match a document indexed in any of the campaign languages.
const TSQUERY = `(websearch_to_tsquery('english', ?) || websearch_to_tsquery('russian', ?)
  || websearch_to_tsquery('spanish', ?) || websearch_to_tsquery('simple', ?))`;

/** Bounding box around a point; longitude is left open near the poles and across ±180. */
function boundingBox(lat: number, lng: number, radiusMi: number) {
  const dLat = radiusMi / 69.0;
  const cos = Math.cos((lat * Math.PI) / 180);
  const dLng = cos > 0.01 ? radiusMi / (69.172 * cos) : 360;
  const lngMin = lng - dLng;
  const lngMax = lng + dLng;
  return {
    latMin: lat - dLat,
    latMax: lat + dLat,
    lng: lngMin < -180 || lngMax > 180 ? null : { min: lngMin, max: lngMax },
  };
}

/** Letter/digit words of q for the trigram fallback (at most 8, each at least 2 characters). */
export function searchWords(q: string): string[] {
  return (q.match(/[\p{L}\p{N}]{2,}/gu) ?? []).slice(0, 8).map((w) => w.slice(0, 50));
}

interface Built {
  where: string[];
  bindings: unknown[];
}

/** 'fts': full-text match; 'fuzzy': the trigram fallback, used only when full text finds nothing. */
type SearchMode = 'fts' | 'fuzzy';

function filters(f: ListFilter, mode: SearchMode): Built {
  const where = [LISTABLE];
  const bindings: unknown[] = [];
  if (f.status === 'active') where.push(LIVE);
  if (f.status === 'closed') where.push(CLOSED);
  if (f.categoryIds) {
    where.push(`f.category_id = any(?::int[])`);
    bindings.push(`{${f.categoryIds.join(',')}}`); // array literal: knex.raw would expand a JS array
  }
  if (f.projects !== null) {
    where.push('f.is_project = ?');
    bindings.push(f.projects);
  }
  if (f.q) {
    if (mode === 'fts') {
      // Full text: stemmed, websearch syntax, GIN-indexed with real selectivity statistics.
      where.push(`f.search_vector @@ ${TSQUERY}`);
      bindings.push(f.q, f.q, f.q, f.q);
    } else {
      // Short and misspelled words: every word of q similar to a word of the title (pg_trgm, GIN-indexed).
      const words = searchWords(f.q);
      where.push(words.length ? `(${words.map(() => '? <% f.title').join(' and ')})` : 'false');
      bindings.push(...words);
    }
  }
  if (f.near) {
    const box = boundingBox(f.near.lat, f.near.lng, f.near.radiusMi);
    where.push('f.location_lat is not null and f.location_lng is not null');
    where.push('f.location_lat between ? and ?');
    bindings.push(box.latMin, box.latMax);
    if (box.lng) {
      where.push('f.location_lng between ? and ?');
      bindings.push(box.lng.min, box.lng.max);
    }
  }
  return { where, bindings };
}

function distanceSql(): string {
  return `(${EARTH_RADIUS_MI} * 2 * asin(least(1, sqrt(
    power(sin(radians(f.location_lat - ?) / 2), 2)
    + cos(radians(?)) * cos(radians(f.location_lat)) * power(sin(radians(f.location_lng - ?) / 2), 2)))))`;
}

type Q = Db | Knex.Transaction;

export interface ListOptions {
  /** The total when the caller already holds it (a cached count): the query then does not count. */
  knownTotal?: number;
}

/**
 * One page of cards plus the total, for the filters of GET /fundraisers, in one round trip: the
 * ordered page of ids (with `count(*) over ()` when the total is not known), the display joins
 * for those ids, in page order. With q, a search that full text cannot satisfy runs once more as
 * the trigram fallback.
 */
export async function listCards(db: Q, f: ListFilter, opts: ListOptions = {}): Promise<{ rows: CardRow[]; total: number }> {
  if (f.q) {
    const hit = await listCardsIn(db, f, 'fts', opts);
    // Trigram fallback only when full text finds nothing (e.g. "vacination", "med").
    return hit.total > 0 ? hit : listCardsIn(db, f, 'fuzzy', opts);
  }
  return listCardsIn(db, f, 'fts', opts);
}

async function listCardsIn(db: Q, f: ListFilter, mode: SearchMode, opts: ListOptions): Promise<{ rows: CardRow[]; total: number }> {
  const { where, bindings } = filters(f, mode);
  const lang = f.lang ?? 'en';
  const select: string[] = [];
  const selectBindings: unknown[] = [];
  let order: string;
  const orderBindings: unknown[] = [];

  if (f.near) {
    select.push(`${distanceSql()} as distance_mi`);
    selectBindings.push(f.near.lat, f.near.lat, f.near.lng);
    order = 'distance_mi asc, f.raised_cents desc, f.created_at desc, f.id desc';
  } else if (f.sort === 'raised') {
    // An explicit sort wins over the search rank; search then only filters.
    order = 'f.raised_cents desc, f.created_at desc, f.id desc';
  } else if (f.q && mode === 'fts') {
    // Weights: title A (1.0) > summary B > category/location C > story D (0.1): a title hit outranks a story hit.
    order = `ts_rank(f.search_vector, ${TSQUERY}) desc, f.created_at desc, f.id desc`;
    orderBindings.push(f.q, f.q, f.q, f.q);
  } else if (f.q) {
    order = 'word_similarity(?, f.title) desc, f.created_at desc, f.id desc';
    orderBindings.push(f.q);
  } else {
    order = 'f.created_at desc, f.id desc';
  }

  const counting = opts.knownTotal === undefined;
  // The window count is taken over every match before LIMIT: only when no cached total exists.
  const n = counting ? ', count(*) over () as n' : ', null::bigint as n';
  const base = `from fundraisers f where ${where.join(' and ')}`;
  const pageInner = `select f.id, f.created_at, f.raised_cents${select.length ? ', ' + select.join(', ') : ''} ${base}`;
  const pageSql = f.near
    ? `select p.id, p.distance_mi${n} from (${pageInner}) p where p.distance_mi <= ?
        order by p.distance_mi asc, p.raised_cents desc, p.created_at desc, p.id desc limit ? offset ?`
    : `select f.id, null::float8 as distance_mi${n} ${base} order by ${order} limit ? offset ?`;
  const pageBindings = f.near
    ? [...selectBindings, ...bindings, f.near.radiusMi, f.limit, f.offset]
    : [...bindings, ...orderBindings, f.limit, f.offset];

  // row_number() over the ordered, limited page keeps its order through the joins below.
  const raw = await queryRows(
    db,
    `with page as materialized (select s.*, row_number() over () as ord from (${pageSql}) s)
     select page.ord, page.n as total_count, page.distance_mi,
        f.id, coalesce(tr.title, f.title) as title, f.slug, coalesce(tr.summary, f.summary) as summary,
        f.goal_amount_cents, ${totalsColumns('f')}, f.currency, f.status, f.type, f.is_project, f.category_id,
        coalesce(c.names->>?, c.names->>'en') as category_name, f.cover_image, f.cover_image_focal_x,
        f.cover_image_focal_y, f.cover_tint, f.location, to_char(f.end_date, 'YYYY-MM-DD') as end_date,
        u.id as owner_id, u.name as owner_name, u.avatar as owner_avatar,
        u.profile_slug as owner_profile_slug, f.created_at
      from page
      join fundraisers f on f.id = page.id
      join users u on u.id = f.owner_user_id
      left join categories c on c.id = f.category_id
      left join fundraiser_translations tr on tr.fundraiser_id = f.id and tr.lang = ? and tr.lang <> f.source_language
      order by page.ord`,
    [...pageBindings, lang, f.lang ?? ''],
  );
  const rows: CardRow[] = raw.map((x) => {
    const t = totalsFromRow(x);
    const card = {
      id: x.id, title: x.title, slug: x.slug, summary: x.summary, goal_amount_cents: x.goal_amount_cents,
      raised_cents: t.total_raised_cents, currency: x.currency, status: x.status, type: x.type,
      is_project: x.is_project, category_id: x.category_id, category_name: x.category_name,
      cover_image: x.cover_image, cover_image_focal_x: x.cover_image_focal_x, cover_image_focal_y: x.cover_image_focal_y,
      cover_tint: x.cover_tint, location: x.location, end_date: x.end_date, donor_count: t.donor_count,
      owner_id: x.owner_id, owner_name: x.owner_name, owner_avatar: x.owner_avatar,
      owner_profile_slug: x.owner_profile_slug, created_at: x.created_at,
    } as CardRow;
    if (x.distance_mi !== null && x.distance_mi !== undefined) card.distance_mi = Number(x.distance_mi);
    return card;
  });
  if (!counting) return { rows, total: opts.knownTotal! };
  if (raw.length > 0) return { rows, total: Number(raw[0]!.total_count) };
  if (f.offset === 0) return { rows, total: 0 };
  // A page past the end has no row to carry the window count: count on its own.
  const countSql = f.near
    ? `select count(*)::int as n from (${pageInner}) p where p.distance_mi <= ?`
    : `select count(*)::int as n ${base}`;
  const countBindings = f.near ? [...selectBindings, ...bindings, f.near.radiusMi] : bindings;
  return { rows, total: Number((await db.raw(countSql, countBindings as any[])).rows[0]?.n ?? 0) };
}

export interface CityRow {
  label: string;
  lat: number;
  lng: number;
  count: number;
}

/** One row per city with at least one live public campaign, most campaigns first, then label. */
export async function cityRows(db: Db): Promise<CityRow[]> {
  const r = await db.raw(
    `select f.location_label as label,
        round(avg(f.location_lat)::numeric, 2)::float8 as lat,
        round(avg(f.location_lng)::numeric, 2)::float8 as lng,
        count(*)::int as count
      from fundraisers f
      where ${LISTABLE} and ${LIVE}
        and f.location_label is not null and f.location_lat is not null and f.location_lng is not null
      group by f.location_label
      order by count desc, label asc`,
  );
  return r.rows;
}
