/**
 * Who may call the local AWS endpoints (local/endpoints.ts) and DynamoDB (the local run is as closed
 * as the cloud): only requests with a loopback `Host`, signed with SigV4 by the keys of the run's own
 * functions; the approvals API is never invoked there (only through its function URL), and the
 * approvals engine only with the handler's keys. A refusal says why in the words AWS uses.
 */
import { screenSigV4, verifySigV4, type ReceivedRequest, type SigV4Scope, type SigV4Verdict } from './sigv4';

export interface EndpointAccess {
  readonly region: string;
  /** The run's function keys, access key id → secret: the only keys these endpoints know. */
  readonly keys: ReadonlyMap<string, string>;
  /** Function names invoked only through their function URL (the approvals API). */
  readonly urlOnly: ReadonlySet<string>;
  /** Function name → the one access key id that may invoke it (the engine: the handler's). */
  readonly invokedOnlyBy: ReadonlyMap<string, string>;
  /** Access key id → the one function it may invoke, and nothing else (`local call`'s: the tool handler). @default - none */
  readonly invokesOnly?: ReadonlyMap<string, string>;
}

/** An AWS error: its type (`x-amzn-errortype`, `__type`) and message; `reason` is for local's own header. */
export interface Refusal {
  readonly type:
    | 'MissingAuthenticationTokenException'
    | 'UnrecognizedClientException'
    | 'InvalidSignatureException'
    | 'AccessDeniedException';
  readonly message: string;
  readonly reason: string;
}

const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. ' +
  'Consult the service documentation for details.';

/** Whose keys an endpoint knows: the region requests are signed for, and access key id → secret. */
export type SigningKeys = Pick<EndpointAccess, 'region' | 'keys'>;

/** SigV4's signing names: Step Functions signs as `states`. */
export type SignedService = 'lambda' | 'events' | 'dynamodb' | 'sqs' | 's3' | 'states';

/**
 * Why a request's headers alone refuse it (no signature's shape, an unknown key, another host, scope
 * or date), or `undefined` when it may pass once its body is read: checked before the body is read.
 */
export function screen(headers: Readonly<Record<string, string>>, service: SignedService, port: number, access: SigningKeys): Refusal | undefined {
  const verdict = screenSigV4(headers, scopeOf(service, port, access));
  return verdict.ok ? undefined : refusalOf(verdict);
}

/** The signer's access key id, or why the request is refused. */
export async function authenticate(
  request: ReceivedRequest,
  service: SignedService,
  port: number,
  access: SigningKeys,
): Promise<{ readonly accessKeyId: string } | { readonly refused: Refusal }> {
  const verdict = await verifySigV4(request, scopeOf(service, port, access));
  return verdict.ok ? { accessKeyId: verdict.accessKeyId } : { refused: refusalOf(verdict) };
}

function scopeOf(service: SignedService, port: number, access: SigningKeys): SigV4Scope {
  return {
    service,
    region: access.region,
    port,
    secretOf: (accessKeyId) => {
      const secretAccessKey = access.keys.get(accessKeyId);
      return secretAccessKey === undefined ? undefined : { secretAccessKey };
    },
  };
}

function refusalOf({ failure, reason }: Extract<SigV4Verdict, { ok: false }>): Refusal {
  if (failure === 'unsigned') return { type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token', reason };
  if (failure === 'unknown-key') return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.', reason };
  return { type: 'InvalidSignatureException', message: SIGNATURE_MISMATCH, reason };
}

const INVOKES_ONLY = 'these keys invoke the tool handler only';

function accessDenied(accessKeyId: string, action: string, resource: string, reason: string): Refusal {
  return {
    type: 'AccessDeniedException',
    message: `User: ${accessKeyId} is not authorized to perform: ${action} on resource: ${resource} (${reason})`,
    reason,
  };
}

/** Why `accessKeyId` may not invoke `functionName` (whose ARN is `functionArn`), or `undefined` when it may. */
export function invokeRefusal(accessKeyId: string, functionName: string, functionArn: string, access: EndpointAccess): Refusal | undefined {
  const denied = (reason: string) => accessDenied(accessKeyId, 'lambda:InvokeFunction', functionArn, reason);
  if (access.urlOnly.has(functionName)) return denied('this function is invoked only through its function URL');
  const may = access.invokesOnly?.get(accessKeyId);
  if (may !== undefined && may !== functionName) return denied(INVOKES_ONLY);
  const only = access.invokedOnlyBy.get(functionName);
  if (only !== undefined && only !== accessKeyId) return denied('only the tool handler invokes this function');
  return undefined;
}

/**
 * Why `accessKeyId` may not do `action` (anything but an Invoke: PutEvents, SQS's calls, a flow's
 * completion) on `resource`, or `undefined` when it may: keys that may invoke one function (`local call`'s) do
 * nothing else.
 */
export function otherActionRefusal(accessKeyId: string, action: string, resource: string, access: EndpointAccess): Refusal | undefined {
  return access.invokesOnly?.has(accessKeyId) ? accessDenied(accessKeyId, action, resource, INVOKES_ONLY) : undefined;
}
