/**
 * The local KMS (local/kms.ts) through the real `@aws-sdk/client-kms`: `GetPublicKey` gives a DER
 * public key that verifies what `Sign` signed (ECDSA_SHA_256 over the RAW message, DER), as KMS does.
 * It is closed as the other stand-ins: an unsigned request, an unknown access key, a wrong secret,
 * another `Host`, a key it did not make and a body over its limit are refused, the last before it is
 * read; and only the signers' keys may `Sign`, while any known key may read the public half.
 */
import { createVerify } from 'node:crypto';
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { publicKeyOf } from '../../lambda/caller-proof';
import { KMS_BODY_LIMIT, startKms, type LocalKms } from '../../local/kms';
import { sendRaw, sendSigned } from './raw-aws-request';

const REGION = 'us-east-1';
const INTERCEPTOR = { accessKeyId: 'AKIAINTERCEPTOR00001', secretAccessKey: 'interceptor-secret' };
const HANDLER = { accessKeyId: 'AKIAHANDLER000000001', secretAccessKey: 'handler-secret' };

let kms: LocalKms;
let keyArn: string;

beforeAll(async () => {
  kms = await startKms({
    region: REGION,
    keys: new Map([INTERCEPTOR, HANDLER].map((k) => [k.accessKeyId, k.secretAccessKey])),
    signers: new Set([INTERCEPTOR.accessKeyId]),
  });
  keyArn = kms.createKey();
});

afterAll(() => kms?.close());

const client = (credentials: typeof INTERCEPTOR) => new KMSClient({ region: REGION, endpoint: kms.url, credentials, maxAttempts: 1 });
const TARGET = { 'content-type': 'application/x-amz-json-1.1' };

test('Sign and GetPublicKey as KMS answers them: the DER public key verifies the DER ECDSA signature of the RAW message', async () => {
  const message = Buffer.from('payload.to.sign');
  const signed = await client(INTERCEPTOR).send(new SignCommand({ KeyId: keyArn, Message: message, MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }));
  expect(signed).toMatchObject({ KeyId: keyArn, SigningAlgorithm: 'ECDSA_SHA_256' });
  const key = await client(HANDLER).send(new GetPublicKeyCommand({ KeyId: keyArn }));
  expect(key).toMatchObject({ KeyId: keyArn, KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY', SigningAlgorithms: ['ECDSA_SHA_256'] });
  expect(Buffer.from(key.PublicKey!)).toEqual(kms.publicKeyDer(keyArn));
  const verifier = createVerify('sha256').update(message);
  expect(verifier.verify(publicKeyOf(key.PublicKey!), Buffer.from(signed.Signature!))).toBe(true);
  // By the key's id alone, too.
  const byId = await client(HANDLER).send(new GetPublicKeyCommand({ KeyId: keyArn.split('/').pop() }));
  expect(byId.KeyId).toBe(keyArn);
});

test('only the signers may Sign: the handler\'s keys read the public half and are refused a signature', async () => {
  await expect(
    client(HANDLER).send(new SignCommand({ KeyId: keyArn, Message: Buffer.from('x'), MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' })),
  ).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringMatching(/not authorized to perform: kms:Sign/) });
});

test('a key it did not make, a DIGEST message, another algorithm: KMS\'s errors', async () => {
  const sign = (input: Partial<ConstructorParameters<typeof SignCommand>[0]>) =>
    client(INTERCEPTOR).send(new SignCommand({ KeyId: keyArn, Message: Buffer.from('x'), MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256', ...input }));
  await expect(sign({ KeyId: 'arn:aws:kms:us-east-1:000000000000:key/nope' })).rejects.toMatchObject({ name: 'NotFoundException' });
  await expect(client(HANDLER).send(new GetPublicKeyCommand({ KeyId: 'nope' }))).rejects.toMatchObject({ name: 'NotFoundException' });
  await expect(sign({ MessageType: 'DIGEST', Message: Buffer.alloc(32) })).rejects.toMatchObject({ name: 'ValidationException' });
  await expect(sign({ SigningAlgorithm: 'ECDSA_SHA_384' })).rejects.toMatchObject({ name: 'InvalidKeyUsageException' });
  await expect(sign({ Message: Buffer.alloc(4097) })).rejects.toMatchObject({ name: 'ValidationException' });
});

describe('closed as the other stand-ins', () => {
  const body = () => JSON.stringify({ KeyId: keyArn });
  const headers = { ...TARGET, 'x-amz-target': 'TrentService.GetPublicKey' };

  test('unsigned: MissingAuthenticationTokenException', async () => {
    const reply = await sendRaw({ origin: kms.url, path: '/', headers, body: body() });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text).__type).toBe('MissingAuthenticationTokenException');
  });

  test('an access key it does not know, or a wrong secret: refused', async () => {
    const unknown = await sendSigned({ origin: kms.url, path: '/', headers, body: body(), service: 'kms', region: REGION, keys: { accessKeyId: 'AKIASTRANGER00000001', secretAccessKey: 's' } });
    expect(JSON.parse(unknown.text).__type).toBe('UnrecognizedClientException');
    const wrong = await sendSigned({ origin: kms.url, path: '/', headers, body: body(), service: 'kms', region: REGION, keys: { ...HANDLER, secretAccessKey: 'guessed' } });
    expect(JSON.parse(wrong.text).__type).toBe('InvalidSignatureException');
  });

  test('signed for another Host (a page reaching it through DNS rebinding), or another service: refused', async () => {
    const rebound = await sendSigned({ origin: kms.url, path: '/', headers, body: body(), service: 'kms', region: REGION, keys: HANDLER, host: 'evil.example.com' });
    expect(rebound.status).toBe(403);
    expect(rebound.headers['x-local-forbidden-reason']).toMatch(/Host is not 127.0.0.1/);
    const lambda = await sendSigned({ origin: kms.url, path: '/', headers, body: body(), service: 'lambda', region: REGION, keys: HANDLER });
    expect(lambda.headers['x-local-forbidden-reason']).toMatch(/signed for another service/);
  });

  test('a body over its limit: a 413, refused from its Content-Length before it is read', async () => {
    const reply = await sendSigned({ origin: kms.url, path: '/', headers, body: 'x'.repeat(KMS_BODY_LIMIT + 1), service: 'kms', region: REGION, keys: HANDLER });
    expect(reply.status).toBe(413);
  });

  test('an operation it does not serve', async () => {
    const reply = await sendSigned({ origin: kms.url, path: '/', headers: { ...TARGET, 'x-amz-target': 'TrentService.ScheduleKeyDeletion' }, body: body(), service: 'kms', region: REGION, keys: HANDLER });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text).__type).toBe('UnknownOperationException');
  });
});
