/** What the CLI needs of its process, passed in so that tests can run it in-process. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Read only to confirm a decision; `isTTY` says whether a person can answer. */
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  /** The environment the AWS SDK sees (credentials, region, endpoints) and the CLI reads. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Writes a line (adds the newline). */
export function writeLine(stream: CliIo['stdout'], text = ''): void {
  stream.write(`${text}\n`);
}
