/** Runs `fn`, which must throw; returns what it threw. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw, but nothing was thrown');
}
