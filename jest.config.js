/** Two projects: pure-logic unit tests beside the code, and e2e tests that boot the real app
 * against the PostgreSQL and Redis started by scripts/test.js. */
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json'}] };
module.exports = {
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: __dirname,
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/unit/**/*.spec.ts'],
      transform,
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      transform,
    },
  ],
};
