/** Field limits of create/update (400 beyond). The gate's reasonability bounds live in integrations/review (REASONABLE). */
export const LIMITS = {
  titleMax: 200,
  summaryMax: 500,
  storyMaxChars: 100_000,
  tagsMax: 10,
  tagMax: 40,
  imagesMax: 20,
  urlMax: 2048,
  unverifiedDraftMax: 5,
} as const;
