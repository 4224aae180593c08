import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export async function insertApplication(
  db: Q,
  a: { name: string; email: string; message: string; links: string[]; user_id: string | null },
): Promise<{ id: string; status: 'received' }> {
  const [row] = await db('ambassador_applications').insert(a).returning(['id', 'status']);
  return row;
}
