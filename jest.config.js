/** Two projects: pure-logic unit tests beside the code, and e2e tests that boot the real app
 * against the PostgreSQL and Redis started by scripts/test.js. */
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  // ES-module-only dependencies (file-type and its tokenizer packages): Node 20.19+ require()s them natively, but
  // Jest's own module loader does not, so Jest compiles them to CommonJS.
  '^.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', esModuleInterop: true, isolatedModules: true } }],
};
const ESM_ONLY = ['file-type', 'strtok3', 'token-types', '@tokenizer', 'uint8array-extras', '@borewit'];
// Single sign-on: openid-client 6 and what it brings (oauth4webapi, jose 6); the tests' OpenID provider (oidc-provider 8)
// and its own ES-module dependencies.
ESM_ONLY.push('openid-client', 'oauth4webapi', 'jose');
ESM_ONLY.push('oidc-provider', 'got', 'nanoid', 'quick-lru', '@sindresorhus/is', '@szmarczak/http-timer', 'cacheable-lookup', 'cacheable-request');
ESM_ONLY.push('form-data-encoder', 'lowercase-keys', 'mimic-response', 'normalize-url', 'p-cancelable', 'responselike');
const esm = {
  transform,
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  // file-type's export map offers only `import`/`module-sync` for Node; Jest resolves through `require`.
  moduleNameMapper: { '^file-type$': '<rootDir>/node_modules/file-type/index.js' },
};
module.exports = {
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: __dirname,
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/unit/**/*.spec.ts'],
      ...esm,
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts', '<rootDir>/test/browser/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      ...esm,
    },
  ],
};
