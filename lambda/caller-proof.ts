/**
 * The proof of a Gateway caller (docs: "Who asked"). AgentCore Gateway validates the client's token
 * but hands a Lambda target none of its claims, and anyone who may invoke the target can set every
 * `clientContext` key; so the package's REQUEST interceptor, having verified the token, signs a
 * short statement of who asked for which tool call, with a KMS key only its role may sign with, and
 * adds it as a header the target allowlists. The handler checks the signature with the key's public
 * half (fetched once per container) and that the statement is for this very call, before it takes
 * the caller. No client, and no one invoking the handler directly, can make one.
 *
 * A proof is `<payload>.<signature>`, both base64url: the payload is the JSON of `CallerStatement`,
 * the signature ECDSA P-256 with SHA-256 over the payload's bytes (KMS `ECDSA_SHA_256`, DER-encoded).
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { Caller, CallerClaim } from './caller';
import { canonicalJson, isJsonObject } from './json';

/** The header the interceptor adds and the Gateway target allowlists (lower case, as the Gateway hands it on). */
export const CALLER_PROOF_HEADER = 'x-cdk-tool-handler-caller';

/** How long a proof is good for: the Gateway invokes the target right after the interceptor. */
export const CALLER_PROOF_LIFETIME_S = 300;

/** What the interceptor states: who asked (`iss`, `sub`, the named claims) for which call (`tool`, `args`), until `exp`. */
export interface CallerStatement {
  readonly v: 1;
  readonly iss: string;
  readonly sub: string;
  readonly claims?: Readonly<Record<string, CallerClaim>>;
  /** The tool's name as the Gateway names it to the target (`<target>___<tool>`). */
  readonly tool: string;
  /** `argsDigest` of the call's arguments. */
  readonly args: string;
  /** Epoch seconds. */
  readonly exp: number;
}

/** SHA-256 (base64url) of the canonical JSON of a call's args: what binds a proof to one call. */
export function argsDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('base64url');
}

/** The bytes the signature covers, and the proof's first part. */
export function statementPayload(statement: CallerStatement): string {
  return Buffer.from(JSON.stringify(statement)).toString('base64url');
}

/** The proof of a statement once its payload is signed. */
export function proofOf(payload: string, signature: Uint8Array): string {
  return `${payload}.${Buffer.from(signature).toString('base64url')}`;
}

/** What a handler checks a proof against: the call it arrived with, and the key that must have signed it. */
export interface ProofCheck {
  /** The tool's name as the Gateway named it to the target. */
  readonly tool: string;
  readonly args: unknown;
  /** The public half of the interceptor's key (DER, SPKI), as KMS `GetPublicKey` gives it. */
  readonly publicKey: KeyObject;
  /** @default now */
  readonly now?: number;
}

/** Tolerated clock difference between the interceptor and the handler. */
const SKEW_S = 60;

/**
 * The caller a proof attests, or `undefined` when it is not a valid proof for this call: malformed,
 * not signed by the key, expired, or stated for another tool or other args.
 */
export function callerFromProof(proof: string, check: ProofCheck): Caller | undefined {
  const parts = proof.split('.');
  if (parts.length !== 2) return undefined;
  const [payload, signature] = parts;
  let valid = false;
  try {
    valid = verify('sha256', Buffer.from(payload), check.publicKey, Buffer.from(signature, 'base64url'));
  } catch {
    return undefined;
  }
  if (!valid) return undefined;
  let statement: unknown;
  try {
    statement = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isStatement(statement)) return undefined;
  const now = (check.now ?? Date.now()) / 1000;
  if (statement.exp + SKEW_S < now || statement.tool !== check.tool || statement.args !== argsDigest(check.args)) return undefined;
  return {
    id: statement.sub,
    kind: 'user',
    source: 'agentcore',
    verified: true,
    issuer: statement.iss,
    ...(statement.claims === undefined ? {} : { claims: statement.claims }),
  };
}

/** A public key as KMS `GetPublicKey` returns it (DER-encoded SubjectPublicKeyInfo). */
export function publicKeyOf(der: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' });
}

function isStatement(value: unknown): value is CallerStatement {
  if (!isJsonObject(value)) return false;
  const { v, iss, sub, tool, args, exp, claims } = value;
  return (
    v === 1 &&
    typeof iss === 'string' &&
    typeof sub === 'string' &&
    sub.length > 0 &&
    typeof tool === 'string' &&
    typeof args === 'string' &&
    typeof exp === 'number' &&
    (claims === undefined || isJsonObject(claims))
  );
}
