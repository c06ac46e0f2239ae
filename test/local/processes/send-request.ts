/**
 * Another process's request to a local run (what another user's script on the machine can send):
 * argv[2] is a request as JSON, signed when it names keys (test/local/raw-aws-request.ts); the reply
 * is printed to stdout as JSON. Bundled and run with `node` by test/local/other-process.ts.
 */
import { sendRaw, sendSigned, type RawRequest, type SignedRequest } from '../raw-aws-request';

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2]) as RawRequest | SignedRequest;
  const reply = await ('keys' in input ? sendSigned(input) : sendRaw(input));
  process.stdout.write(JSON.stringify(reply));
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
