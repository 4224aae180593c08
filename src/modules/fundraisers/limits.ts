/** Reasonability bounds of the publish gate and field limits of create/update (documented in OpenAPI). */
export const LIMITS = {
  titleMax: 200,
  titleMinToPublish: 5,
  summaryMax: 500,
  storyMaxChars: 100_000,
  storyMinTextToPublish: 20,
  goalMinCents: 100, // $1
  goalMaxCents: 1_000_000_000, // $10M
  endDateMaxDays: 365,
  tagsMax: 10,
  tagMax: 40,
  imagesMax: 20,
  urlMax: 2048,
  unverifiedDraftMax: 5,
} as const;
