import { createHash, randomUUID } from 'node:crypto';
import { canonicalJson } from './json';

/**
 * `crypto.hash`: one call, several times faster than a Hash object for a short string (every call
 * hashes its args). Node.js 20.12 added it; looked up at run time, never imported, so that the
 * module still loads (as ESM too) where it is missing, and hashes with a Hash object there.
 */
const hashOnce = (process.getBuiltinModule?.('node:crypto') as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string } | undefined)?.hash;

/** SHA-256 of `text` (UTF-8), base64url. */
function sha256(text: string): string {
  return hashOnce ? hashOnce('sha256', text, 'base64url') : createHash('sha256').update(text).digest('base64url');
}

function digest(parts: readonly unknown[]): string {
  return sha256(JSON.stringify(parts));
}

/**
 * Ids for a call that came without them. The same (source, messageId) always gives the same ids,
 * so a redelivered message names the same call again; without a messageId they are random.
 */
export function deriveCallIds(source: string, messageId: string | undefined): { runId: string; callId: string } {
  if (messageId === undefined) return { runId: `run_${randomUUID()}`, callId: `call_${randomUUID()}` };
  const hash = digest([source, messageId]);
  return { runId: `run_${hash.slice(0, 21)}`, callId: `call_${hash.slice(21, 42)}` };
}

/** The approval id of a call: the same call always gets the same approval. */
export function approvalIdFor(runId: string, callId: string): string {
  return `apr_${digest(['approval', runId, callId]).slice(0, 32)}`;
}

/** What the same ids must carry again: the tool and its args. */
export function callFingerprint(tool: string, args: unknown): string {
  return sha256(`${tool}\0${canonicalJson(args)}`);
}

/**
 * Ids for a call from a host that names a session but not the call (AgentCore Gateway, Bedrock
 * Agents): `run_id` from the host's scope, the session and the caller's id (two callers never share
 * a call, nor its kept reply or its approval), `call_id` from the tool and its canonical args, so an
 * identical call repeated in one session names the same call. Without a session they are fresh.
 */
export function sessionCallIds(
  prefix: string,
  scope: string,
  sessionId: string | undefined,
  tool: string,
  args: unknown,
  callerId?: string,
): { runId: string; callId: string } {
  if (sessionId === undefined) return { runId: `${prefix}${randomUUID()}`, callId: `${prefix}${randomUUID()}` };
  const run = callerId === undefined ? [scope, sessionId] : [scope, sessionId, callerId];
  return {
    runId: `${prefix}${sha256(canonicalJson(run))}`,
    callId: `${prefix}${sha256(canonicalJson([tool, args]))}`,
  };
}
