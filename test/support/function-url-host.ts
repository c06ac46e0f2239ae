/**
 * The tests' function URL with AWS_IAM auth is the one `cdk-tool-handler local` serves
 * (local/function-url.ts), so that what the tests trust is what users run.
 */
export * from '../../local/function-url';
