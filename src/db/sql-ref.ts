/**
 * A column or alias name (`d`, `d.fundraiser_id`) checked for use inside SQL text: the join
 * fragments modules publish are text (they go into raw queries and queryRows alike), so the
 * names a caller passes must be plain identifiers, never input.
 */
export function sqlRef(ref: string): string {
  if (!/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/.test(ref)) throw new Error(`bad SQL reference ${ref}`);
  return ref;
}
