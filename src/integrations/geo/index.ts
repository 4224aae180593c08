// CONTRACT STUB (owner: discovery work). Replace the body, keep the signature.

export interface CityPoint {
  lat: number;
  lng: number;
  /** 'City, REGION' in the US, 'City, Country' elsewhere. */
  label: string;
}

/** Resolves free-text campaign location ("Austin, TX", "Kyiv, Ukraine", "78701") to a city point. */
export function resolveLocation(_text: string | null | undefined): CityPoint | null {
  return null;
}
