/** The empty handler: what a cold start costs with no code of ours or anyone's. */
export const handler = async (_event: unknown) => ({ batchItemFailures: [] });
