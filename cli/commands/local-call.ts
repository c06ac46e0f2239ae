/**
 * `local call`: sends each envelope to the tool handler of the running `cdk-tool-handler local` of
 * this app folder (found through its state file, from any folder below the app), as a direct
 * invoke signed with the run's caller keys (which may invoke that function and nothing else), and
 * prints each reply once. The run's own output shows the reply bus's events and what follows
 * (approvals, resumes).
 */
import { signedFetch } from '../../approvals-client/signed-fetch';
import { CliError } from '../../console/errors';
import { escapeText, printableJson } from '../../console/escape';
import { writeLine, type CliIo } from '../../console/io';
import { formatReply } from '../../local/print';
import { readState } from '../../local/state';
import type { LocalCallCommand } from '../local-call-args';

/** 0 when every call was answered with a reply (`ok`, `pending_approval`, `already_done`), 1 when one threw. */
export async function localCallCommand(command: LocalCallCommand, io: CliIo): Promise<number> {
  const state = readState(io.env);
  if (!state.calls) throw new CliError('The running local run takes no calls from other commands: it was started by an older cdk-tool-handler. Restart it.');
  const { endpoint, functionName, accessKeyId, secretAccessKey } = state.calls;
  const url = new URL(`/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`, endpoint);
  let failed = false;
  for (const envelope of command.envelopes) {
    const reply = await signedFetch({
      method: 'POST',
      url,
      region: state.region,
      credentials: async () => ({ accessKeyId, secretAccessKey }),
      body: envelope,
      timeoutMs: 15 * 60_000,
      what: 'the local run',
    });
    let body: any;
    try {
      body = JSON.parse(reply.text);
    } catch {
      throw new CliError(`The local run answered ${reply.status} with a body that is not JSON.`);
    }
    if (reply.status !== 200) throw new CliError(`The local run refused the call (${reply.status}): ${body?.message ?? body?.Message ?? 'no message'}.`);
    const threw = typeof body?.errorType === 'string';
    failed ||= threw;
    if (command.json) writeLine(io.stdout, printableJson(threw ? { type: 'thrown', error: body } : { type: 'reply', reply: body }));
    else writeLine(io.stdout, threw ? `← threw ${escapeText(body.errorType)}: ${escapeText(String(body.errorMessage))}` : `← ${formatReply(body)}`);
  }
  return failed ? 1 : 0;
}
