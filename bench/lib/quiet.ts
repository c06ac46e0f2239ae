/**
 * Runs `work` with the process's standard output muted: the runtime writes one log line per call,
 * which is not the bench's output.
 */
export async function withoutLogLines<T>(work: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    return await work();
  } finally {
    process.stdout.write = write;
  }
}
