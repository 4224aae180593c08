/**
 * Banned content, matched as whole words/phrases on normalised text (lower case, punctuation
 * collapsed). BLOCK terms stop publication; FLAG terms send the campaign to staff review.
 */
export const BLOCK_TERMS = [
  'ponzi',
  'pyramid scheme',
  'guaranteed return',
  'guaranteed returns',
  'double your money',
  'money laundering',
  'launder money',
  'counterfeit',
  'stolen credit card',
  'stolen credit cards',
  'carding',
  'buy drugs',
  'cocaine',
  'heroin',
  'fentanyl',
  'weapons for sale',
  'hitman',
] as const;

export const FLAG_TERMS = [
  'crypto',
  'bitcoin',
  'investment opportunity',
  'forex',
  'lottery',
  'casino',
  'gambling',
  'wire transfer',
  'western union',
  'gift card',
  'gift cards',
  'pay me directly',
  'whatsapp me',
  'telegram me',
] as const;
