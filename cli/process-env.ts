/**
 * The AWS SDK's credential chain and client config read `process.env` themselves (no option takes an
 * environment). `main` receives its environment as a parameter, so around each SDK call it lets the
 * SDK see exactly that environment, and puts `process.env` back afterwards. Only SDK calls run
 * inside (credential resolution, the CloudFormation lookup), never a request to the approvals API,
 * so a handler served in the same process (tests) keeps its own environment.
 */
export async function withProcessEnv<T>(
  env: Readonly<Record<string, string | undefined>>,
  run: () => Promise<T>,
): Promise<T> {
  if (env === process.env) return run();
  const saved = process.env;
  const scoped: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined) scoped[name] = value;
  }
  process.env = scoped;
  try {
    return await run();
  } finally {
    process.env = saved;
  }
}
