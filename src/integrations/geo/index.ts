import { resolveCityText, resolveZip, type CityPoint } from './gazetteer';


export { lookupZip, largestCities, type CityPoint, type ZipPoint } from './gazetteer';

/**
 * Resolves free-text campaign location ("Austin, TX", "Austin, Texas", "Kyiv, Ukraine", "Kyiv",
 * "78701") to a city-level point through the in-memory gazetteer; null when nothing matches.
 * A bare city name picks the most populous city of that name.
 */
export function resolveLocation(text: string | null | undefined): CityPoint | null {
  if (typeof text !== 'string') return null;
  const t = text.trim().slice(0, 200);
  if (!t) return null;
  if (/^\d{5}(?:-\d{4})?$/.test(t)) return resolveZip(t);
  return resolveCityText(t);
}
