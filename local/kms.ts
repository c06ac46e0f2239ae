/**
 * AWS KMS on 127.0.0.1, for the keys that prove Gateway callers: `Sign` (what the Gateway
 * interceptor does with its key) and `GetPublicKey` (what a tool handler does once per container),
 * as KMS's JSON 1.1 API answers them (`X-Amz-Target: TrentService.<Operation>`), so the real
 * `@aws-sdk/client-kms`, pointed here with `AWS_ENDPOINT_URL_KMS`, works unchanged. Each key is an
 * ECC_NIST_P256 SIGN_VERIFY key pair made with node:crypto; a public key is DER (SPKI) and a
 * signature DER (ECDSA_SHA_256), both base64 in the JSON, as KMS gives them.
 *
 * Closed as the other stand-ins are (local/sigv4.ts): only requests with a loopback `Host`, signed
 * with SigV4 by keys this endpoint knows; a key it did not make is `NotFoundException`; and, as a
 * key policy would, only the access keys named as signers may `Sign`. A body over
 * `KMS_BODY_LIMIT` is refused before it is read past the limit.
 */
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { answerAndClose, AWS_JSON_1_1, joinHeaders, readBody, splitUrl } from './http-request';
import { LOCAL_ACCOUNT } from './intrinsics';
import { listenOnLoopback } from './loopback-server';
import { screenSigV4, verifySigV4, type SigV4Scope, type SigV4Verdict } from './sigv4';

/**
 * 64 KB: far above any valid request of these two operations (a `Sign` message is at most 4,096
 * bytes, about 5.5 KB in base64), far below what could hurt.
 */
export const KMS_BODY_LIMIT = 64 * 1024;

/** KMS's own limit on a `RAW` message to sign. */
const MAX_RAW_MESSAGE = 4096;

export interface KmsAccess {
  readonly region: string;
  /** Access key id → secret: the only keys this endpoint knows. */
  readonly keys: ReadonlyMap<string, string>;
  /**
   * The access key ids that may `Sign` (the interceptor's), as the key's policy and IAM would allow.
   *
   * @default - every key of `keys`
   */
  readonly signers?: ReadonlySet<string>;
}

/** A request the endpoint served or refused: what it was, and who signed it (when known). */
export interface KmsRequest {
  readonly operation: string;
  readonly accessKeyId?: string;
  /** Whether it was answered with a result (not an error). */
  readonly ok: boolean;
}

export interface LocalKms {
  /** `http://127.0.0.1:<port>`: what the functions get as `AWS_ENDPOINT_URL_KMS`. */
  readonly url: string;
  /** Every request, in order: the tests and the bench count them. */
  readonly requests: KmsRequest[];
  /** Makes a new ECC_NIST_P256 signing key; returns its ARN. */
  createKey(): string;
  /** The public half of a key made here (DER, SPKI), as `GetPublicKey` gives it. */
  publicKeyDer(keyArn: string): Buffer;
  close(): Promise<void>;
}

interface KeyPair {
  readonly arn: string;
  readonly privateKey: KeyObject;
  readonly publicKeyDer: Buffer;
}

interface KmsError {
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

const OPERATIONS = new Set(['Sign', 'GetPublicKey']);
const SIGNING_ALGORITHM = 'ECDSA_SHA_256';

export async function startKms(access: KmsAccess): Promise<LocalKms> {
  const keys = new Map<string, KeyPair>();
  const requests: KmsRequest[] = [];
  let port = 0;
  const server = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) answer(res, { status: 500, type: 'KMSInternalException', message: String(error) });
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers = joinHeaders(req);
    const operation = /^TrentService\.([A-Za-z]+)$/.exec(headers['x-amz-target'] ?? '')?.[1];
    if (req.method !== 'POST' || operation === undefined || !OPERATIONS.has(operation)) {
      requests.push({ operation: operation ?? 'unknown', ok: false });
      return refuse(res, { status: 400, type: 'UnknownOperationException', message: 'local KMS: no such operation (it serves Sign and GetPublicKey)' });
    }
    const scope = scopeOf(access, port);
    const screened = screenSigV4(headers, scope);
    if (!screened.ok) {
      requests.push({ operation, ok: false });
      return refuse(res, signatureRefusal(screened));
    }
    const bytes = await readBody(req, KMS_BODY_LIMIT);
    if (bytes === undefined) {
      requests.push({ operation, accessKeyId: screened.accessKeyId, ok: false });
      return refuse(res, { status: 413, type: 'RequestEntityTooLargeException', message: `Request must be smaller than ${KMS_BODY_LIMIT} bytes` });
    }
    const { rawPath, rawQueryString } = splitUrl(req.url ?? '/');
    const body = bytes.toString('utf8');
    const verdict = await verifySigV4({ method: 'POST', rawPath, rawQueryString, headers, body }, scope);
    if (!verdict.ok) {
      requests.push({ operation, ok: false });
      return refuse(res, signatureRefusal(verdict));
    }
    const result = perform(operation, verdict.accessKeyId, body);
    requests.push({ operation, accessKeyId: verdict.accessKeyId, ok: !isError(result) });
    if (isError(result)) return answer(res, result);
    res.writeHead(200, { 'content-type': AWS_JSON_1_1, 'x-amzn-requestid': randomUUID() });
    res.end(JSON.stringify(result));
  }

  function perform(operation: string, accessKeyId: string, body: string): Record<string, unknown> | KmsError {
    let input: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(body || '{}');
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      input = parsed as Record<string, unknown>;
    } catch {
      return { status: 400, type: 'SerializationException', message: 'local KMS: the request body is not a JSON object' };
    }
    const key = typeof input.KeyId === 'string' ? findKey(input.KeyId) : undefined;
    if (key === undefined) return { status: 400, type: 'NotFoundException', message: 'local KMS: KeyId names no key of this endpoint' };
    if (operation === 'GetPublicKey') {
      return {
        KeyId: key.arn,
        PublicKey: key.publicKeyDer.toString('base64'),
        KeySpec: 'ECC_NIST_P256',
        CustomerMasterKeySpec: 'ECC_NIST_P256',
        KeyUsage: 'SIGN_VERIFY',
        SigningAlgorithms: [SIGNING_ALGORITHM],
      };
    }
    if (access.signers && !access.signers.has(accessKeyId)) {
      return { status: 400, type: 'AccessDeniedException', message: `User: ${accessKeyId} is not authorized to perform: kms:Sign on resource: ${key.arn}` };
    }
    return signWith(key, input);
  }

  function findKey(keyId: string): KeyPair | undefined {
    return keys.get(keyId) ?? [...keys.values()].find((key) => key.arn.endsWith(`:key/${keyId}`));
  }

  const listening = await listenOnLoopback(server);
  port = listening.port;
  return {
    url: listening.url,
    requests,
    createKey() {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const arn = `arn:aws:kms:${access.region}:${LOCAL_ACCOUNT}:key/${randomUUID()}`;
      keys.set(arn, { arn, privateKey, publicKeyDer: publicKey.export({ format: 'der', type: 'spki' }) });
      return arn;
    },
    publicKeyDer(keyArn) {
      const key = keys.get(keyArn);
      if (!key) throw new Error('local KMS: no such key');
      return key.publicKeyDer;
    },
    close: () => listening.close(),
  };
}

function isError(result: Record<string, unknown> | KmsError): result is KmsError {
  return typeof result.status === 'number' && typeof result.type === 'string';
}

function signWith(key: KeyPair, input: Record<string, unknown>): Record<string, unknown> | KmsError {
  const invalid = (message: string): KmsError => ({ status: 400, type: 'ValidationException', message });
  if (input.SigningAlgorithm !== SIGNING_ALGORITHM) {
    return { status: 400, type: 'InvalidKeyUsageException', message: `local KMS: this key signs with ${SIGNING_ALGORITHM} only` };
  }
  if (input.MessageType !== undefined && input.MessageType !== 'RAW' && input.MessageType !== 'DIGEST') {
    return invalid('MessageType must be RAW or DIGEST');
  }
  if (typeof input.Message !== 'string' || input.Message.length === 0) return invalid('Message is required (base64)');
  const message = Buffer.from(input.Message, 'base64');
  if (input.MessageType === 'DIGEST') {
    // A precomputed SHA-256 digest: node:crypto signs a digest only through its hash, so DIGEST is
    // not served here (the package's interceptor signs RAW messages).
    return invalid('local KMS: MessageType DIGEST is not served; sign the RAW message');
  }
  if (message.length === 0 || message.length > MAX_RAW_MESSAGE) return invalid(`a RAW Message must be 1 to ${MAX_RAW_MESSAGE} bytes`);
  return {
    KeyId: key.arn,
    Signature: sign('sha256', message, key.privateKey).toString('base64'),
    SigningAlgorithm: SIGNING_ALGORITHM,
  };
}

function scopeOf(access: KmsAccess, port: number): SigV4Scope {
  return {
    service: 'kms',
    region: access.region,
    port,
    secretOf: (accessKeyId) => {
      const secretAccessKey = access.keys.get(accessKeyId);
      return secretAccessKey === undefined ? undefined : { secretAccessKey };
    },
  };
}

/** How KMS answers a request whose signature fails, in the words AWS uses (the reason in local's own header). */
function signatureRefusal({ failure, reason }: Extract<SigV4Verdict, { ok: false }>): KmsError & { reason: string } {
  if (failure === 'unsigned') return { status: 403, type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token', reason };
  if (failure === 'unknown-key') return { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.', reason };
  return {
    status: 403,
    type: 'InvalidSignatureException',
    message: 'The request signature we calculated does not match the signature you provided.',
    reason,
  };
}

/** An error answered, closing the connection (a body not read yet is never read). */
function refuse(res: ServerResponse, error: KmsError & { reason?: string }): void {
  const reason = error.reason === undefined ? {} : { 'x-local-forbidden-reason': error.reason };
  answerAndClose(
    res,
    error.status,
    { 'content-type': AWS_JSON_1_1, 'x-amzn-errortype': error.type, ...reason },
    JSON.stringify({ __type: error.type, message: error.message }),
  );
}

function answer(res: ServerResponse, error: KmsError): void {
  res.writeHead(error.status, { 'content-type': AWS_JSON_1_1, 'x-amzn-errortype': error.type });
  res.end(JSON.stringify({ __type: error.type, message: error.message }));
}

