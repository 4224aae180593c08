import { largestCities, lookupZip, resolveLocation } from '../../src/integrations/geo';

describe('resolveLocation (gazetteer)', () => {
  test.each([
    ['Austin, TX', 'Austin, TX', 30.27, -97.74],
    ['Austin, Texas', 'Austin, TX', 30.27, -97.74],
    ['austin tx', 'Austin, TX', 30.27, -97.74],
    ['Austin', 'Austin, TX', 30.27, -97.74], // most populous Austin
    ['Paris', 'Paris, France', 48.85, 2.35],
    ['Paris, TX', 'Paris, TX', 33.66, -95.56],
    ['Portland, Oregon', 'Portland, OR', 45.52, -122.68],
    ['Portland, ME', 'Portland, ME', 43.66, -70.26],
    ['Kyiv, Ukraine', 'Kyiv, Ukraine', 50.45, 30.52],
    ['Kyiv', 'Kyiv, Ukraine', 50.45, 30.52],
    ['London, UK', 'London, United Kingdom', 51.51, -0.13],
    ['Berlin, DE', 'Berlin, Germany', 52.52, 13.41], // DE is not a Delaware city, so Germany
    ['Madrid, España', 'Madrid, Spain', 40.42, -3.7],
    ['sao paulo, brazil', 'São Paulo, Brazil', -23.55, -46.64],
    ['78701', 'Austin, TX', 30.27, -97.74],
    ['10001', 'New York, NY', 40.75, -74],
  ])('when the text is %p then it resolves to %p', (text, label, lat, lng) => {
    const p = resolveLocation(text);
    expect(p).not.toBeNull();
    expect(p!.label).toBe(label);
    expect(p!.lat).toBeCloseTo(lat, 1);
    expect(p!.lng).toBeCloseTo(lng, 1);
  });

  test.each([[null], [undefined], [''], ['   '], ['Nowhere, Narnia'], ['00000'], ['Austin, Ukraine'], ['x']])(
    'when the text is %p then no point is returned',
    (text) => {
      expect(resolveLocation(text as string | null | undefined)).toBeNull();
    },
  );
});

describe('lookupZip', () => {
  test('when a US ZIP is known then city, state, label and its own centroid are returned', () => {
    expect(lookupZip('78701')).toEqual({ zip: '78701', city: 'Austin', state: 'TX', label: 'Austin, TX', lat: 30.2713, lng: -97.7426 });
  });

  test('when the ZIP is unknown or Canadian then null', () => {
    expect(lookupZip('00000')).toBeNull();
    expect(lookupZip('H0H')).toBeNull();
    expect(lookupZip('abc')).toBeNull();
  });
});

describe('largestCities', () => {
  test('when asked for the largest cities then they come most populous first with labels', () => {
    const top = largestCities(50);
    expect(top).toHaveLength(50);
    expect(top.every((c) => /^.+, .+$/.test(c.label))).toBe(true);
    expect(top.map((c) => c.label)).toContain('New York City, NY');
  });
});
