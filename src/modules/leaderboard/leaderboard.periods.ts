/** The rankings kept: one per period (all time, last 30 and 7 days) and audience. */
export const PERIODS = ['all', '30d', '7d'] as const;
export const AUDIENCES = ['all', 'creators', 'ambassadors', 'donors'] as const;
export type Period = (typeof PERIODS)[number];
export type Audience = (typeof AUDIENCES)[number];
