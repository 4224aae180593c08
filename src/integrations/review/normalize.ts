/** Lower case, letters and digits only (any script), single spaces: the form rules compare. */
export function normalizeText(s: string | null | undefined): string {
  return (s ?? '')
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Terms of `list` found as whole words or phrases in normalised `text`. */
export function findTerms(text: string, list: readonly string[]): string[] {
  const padded = ` ${text} `;
  return list.filter((term) => padded.includes(` ${term} `));
}
