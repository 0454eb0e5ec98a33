// Unit tests live beside the code (src, *.spec.ts); end-to-end tests in test/ (*.e2e-spec.ts).
const transform = { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] };
const esm = {
  extensionsToTreatAsEsm: ['.ts'],
  // Sources import siblings as './x.js' (Node ESM); jest resolves them to the .ts files.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform,
};

/** @type {import('jest').Config} */
module.exports = {
  // PostgreSQL does the waiting in the end-to-end tests, so two workers keep both cores busy.
  maxWorkers: 2,
  // End-to-end tests boot apps and wait on PostgreSQL and local receivers.
  // (Some also start service processes; on a shared, busy machine one boot can take a minute.)
  testTimeout: 180000,
  globalSetup: '<rootDir>/test/setup/global-setup.mjs',
  globalTeardown: '<rootDir>/test/setup/global-teardown.mjs',
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      roots: ['<rootDir>/src', '<rootDir>/sdk/src'],
      testMatch: ['**/*.spec.ts'],
      ...esm,
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.e2e-spec.ts'],
      ...esm,
    },
  ],
};
