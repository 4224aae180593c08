/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/helpers/per-file-db.ts'],
  // jose (used by jwks-rsa) ships only ES modules; let swc turn it into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  // A test's budget is for catching hangs, not for measuring: a laptop busy with other work (both
  // cores taken) runs a test several times slower than an idle one, and must still pass.
  testTimeout: 120000,
  maxWorkers: 2,
};
