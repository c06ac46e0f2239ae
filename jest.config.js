// The AWS SDK warns once per process that its releases after early 2027 need Node.js 22; this is the
// variable it reads (@aws-sdk/core, emitWarningIfUnsupportedVersion). Workers inherit it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// aws-cdk-lib checks every synthesized template against CloudFormation's rules (a WebAssembly engine,
// loaded again in each test file): most of a synth test's time. The tests that check templates
// against those rules turn it back on (test/construct/nag.test.ts, test/inbox/inbox-construct.test.ts);
// the sample app's and the consumer app's synths in .ci/run keep it.
process.env.CDK_VALIDATION ??= 'false';

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // `ts` first: a stale compiled `.js` beside a source must never shadow it.
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json' }],
  },
  testTimeout: 30000,
  // Two workers on CI's two cores: many files wait (on child processes, loopback servers, the
  // fault-injection run's stalls) while others compute. Measured: 440 s with one worker, 386 s with two.
  maxWorkers: 2,
  // One dynalite for the whole run, on a free 127.0.0.1 port; test files read DYNALITE_ENDPOINT.
  // Each test file's local runs get a state file of their own (two workers run files side by side).
  setupFiles: ['<rootDir>/test/setup/own-local-state.ts'],
  globalSetup: '<rootDir>/test/setup/dynalite-global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/dynalite-global-teardown.ts',
};
