// Mutation testing of the security-critical code (issue 25): `npm run mutate`.
// See docs/testing.md for the scope, the score and the surviving mutants explained.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'tap',
  tap: {
    testFiles: [
      'test/oauth/**/*.test.ts',
      'test/verification/**/*.test.ts',
      'test/methods/totp/*.test.ts',
      'test/methods/passkey/*.test.ts',
      'test/gateway/request-target.test.ts',
      'test/gateway/token-exchange-credentials.test.ts',
      'test/gateway/token-exchange.test.ts',
      'test/gateway/proxy.test.ts',
      'test/fuzz/gateway/request-target*.test.ts',
    ],
    nodeArgs: ['--disable-warning=ExperimentalWarning', '--test-reporter=tap', '-r', '{{hookFile}}', '{{testFile}}'],
    forceBail: true,
  },
  mutate: [
    'src/oauth/tokens/reader.ts',
    'src/oauth/tokens/issuer.ts',
    'src/oauth/tokens/es256-jws.ts',
    'src/oauth/tokens/opaque-token.ts',
    'src/oauth/tokens/access-token-claims.ts',
    'src/oauth/tokens/delegation-claims.ts',
    'src/oauth/grants/*.ts',
    'src/oauth/client-auth.ts',
    'src/verification/verify.ts',
    'src/verification/refusals.ts',
    'src/verification/code.ts',
    'src/verification/initiate.ts',
    'src/verification/verifiable.ts',
    'src/methods/totp/spend.ts',
    'src/methods/totp/login.ts',
    'src/methods/passkey/check-assertion.ts',
    'src/methods/passkey/authenticator-amr.ts',
    'src/gateway/request/request-target.ts',
    'src/gateway/plugins/token-exchange/credentials.ts',
  ],
  // Nothing is compiled: node strips the types of the instrumented sources. The core would
  // rewrite tsconfig.json through TypeScript's JS API, which TypeScript 7 (native) no longer
  // ships, so point it at no file. For the same reason the TypeScript checker cannot run:
  // a mutant that would not type-check is run anyway and judged by what it does.
  tsconfigFile: 'no-tsconfig-to-rewrite.json',
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  concurrency: 2,
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  // event-recorder writes each mutant's result as it is known (reports/mutation/events):
  // survivors can be read, and worked on, long before a full run ends.
  reporters: ['progress', 'clear-text', 'html', 'json', 'event-recorder'],
  eventReporter: { baseDir: 'reports/mutation/events' },
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
