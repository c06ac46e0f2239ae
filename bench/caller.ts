/**
 * Verifying a Gateway caller: the CPU of a warm proof check (`callerFromProof`, the
 * handler's own code, with the key's public half the handler fetched), and the KMS calls a warm
 * handler makes to check a proof. The handler (`toolHandler`, the real runtime) runs in this process
 * with its KMS client pointed at the local KMS (local/kms.ts) through `AWS_ENDPOINT_URL_KMS`; the
 * proof is signed there, as the interceptor signs it; KMS calls are counted at that endpoint.
 */
import { performance } from 'node:perf_hooks';
import { KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor } from '../lambda';
import { callerPublicKey } from '../lambda/caller-keys';
import { argsDigest, CALLER_PROOF_HEADER, CALLER_PROOF_LIFETIME_S, callerFromProof, proofOf, statementPayload } from '../lambda/caller-proof';
import { ENV } from '../lambda/construct-contract';
import { startKms } from '../local/kms';
import { lambdaContext } from '../test/support/events';
import { withoutLogLines } from './lib/quiet';
import { median } from './lib/stats';

export interface CallerVerify {
  /** Median CPU time of one warm `callerFromProof`, in ms. */
  readonly cpuMsP50: number;
  /** KMS calls per warm invocation that checks a proof. */
  readonly networkCallsWarm: number;
  /** KMS calls of the first (cold) invocation: the public key's one read. */
  readonly networkCallsCold: number;
}

const credentials = { accessKeyId: 'AKIABENCHCALLERS0001', secretAccessKey: 'bench' };
const TOOL = 'Bench___whoami';

export async function measureCallerVerify(iterations: number): Promise<CallerVerify> {
  const kms = await startKms({ region: 'us-east-1', keys: new Map([[credentials.accessKeyId, credentials.secretAccessKey]]) });
  const keyArn = kms.createKey();
  const saved = { ...process.env };
  Object.assign(process.env, {
    [ENV.callerKey]: keyArn,
    AWS_ENDPOINT_URL_KMS: kms.url,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  });
  try {
    const args = { orderId: 'o-1', note: 'bench' };
    const payload = statementPayload({
      v: 1,
      iss: 'https://issuer.example.com',
      sub: 'user-1',
      claims: { email: 'user-1@example.com', groups: ['support'] },
      tool: TOOL,
      args: argsDigest(args),
      exp: Math.floor(Date.now() / 1000) + CALLER_PROOF_LIFETIME_S,
    });
    const signer = new KMSClient({ region: 'us-east-1', endpoint: kms.url, credentials });
    const { Signature } = await signer.send(new SignCommand({ KeyId: keyArn, Message: Buffer.from(payload), MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }));
    signer.destroy();
    const proof = proofOf(payload, Signature!);

    let seen: unknown;
    const whoami = tool({ name: 'whoami', run: (_args, ctx) => (seen = ctx.caller) ?? null });
    const handler = toolHandler(new ToolExecutor({ tools: [whoami], approvals: new MemoryApprovalStore(), calls: false }));
    const custom = { bedrockAgentCoreToolName: TOOL, bedrockAgentCorePropagatedHeaders: JSON.stringify({ [CALLER_PROOF_HEADER]: proof }) };
    const invoke = async () => {
      seen = undefined;
      await handler(args, { ...lambdaContext(30_000), clientContext: { client: {} as any, env: {} as any, custom } } as any);
      if ((seen as { verified?: boolean } | undefined)?.verified !== true) throw new Error('bench: the handler did not verify the proof');
    };
    const counted = async (work: () => Promise<void>) => {
      const before = kms.requests.length;
      await work();
      return kms.requests.length - before;
    };

    let networkCallsCold = 0;
    let warmCalls = 0;
    await withoutLogLines(async () => {
      networkCallsCold = await counted(invoke);
      for (let i = 0; i < iterations; i++) warmCalls += await counted(invoke);
    });

    // The check itself, with the public key the handler keeps for the container.
    const publicKey = await callerPublicKey(keyArn);
    for (let i = 0; i < 50; i++) callerFromProof(proof, { tool: TOOL, args, publicKey });
    const samples: number[] = [];
    for (let i = 0; i < iterations * 10; i++) {
      const started = performance.now();
      const caller = callerFromProof(proof, { tool: TOOL, args, publicKey });
      samples.push(performance.now() - started);
      if (caller === undefined) throw new Error('bench: the proof did not check');
    }
    return { cpuMsP50: median(samples), networkCallsWarm: warmCalls / iterations, networkCallsCold };
  } finally {
    process.env = saved;
    await kms.close();
  }
}
