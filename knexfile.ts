// For the knex CLI (`npx knex migrate:make name -x ts`). The app migrates itself at start.
import type { Knex } from 'knex';

const config: Knex.Config = {
  client: 'pg',
  connection: process.env.DATABASE_URL,
  migrations: { directory: './migrations', extension: 'ts', loadExtensions: ['.ts'] },
  seeds: { directory: './seeds', loadExtensions: ['.ts'] },
};

export default config;
module.exports = config;
