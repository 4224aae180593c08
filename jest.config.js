const transform = { '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] };

/** The suite as it always was: one database per file (test/helpers/per-file-db.ts). */
const main = {
  displayName: 'main',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // test/cluster/ is its own project: it starts a whole cluster and needs no per-file database.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/cluster/'],
  transform,
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/helpers/per-file-db.ts'],
  // jose (used by jwks-rsa) ships only ES modules; let swc turn it into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
};

/**
 * The local production topology under load (scripts/cluster/topology.ts: HAProxy, API processes,
 * workers, PgBouncer, a primary and its replica, Redis), started once per file in beforeAll.
 */
const cluster = {
  displayName: 'cluster',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/cluster'],
  testMatch: ['**/*.test.ts'],
  transform,
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  // Its tests set their own (longer) timeout: testTimeout is a global option, not a project's.
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [main, cluster],
  // A test's budget is for catching hangs, not for measuring: a laptop busy with other work (both
  // cores taken) runs a test several times slower than an idle one, and must still pass.
  testTimeout: 120000,
  maxWorkers: 2,
  // Each file requires the whole app again in a fresh module registry, and a worker keeps what it
  // loaded: left alone, the two workers grew past 2 GB each and spent their time collecting
  // garbage. Jest starts a fresh worker between files once one holds more than this.
  workerIdleMemoryLimit: '800MB',
};
