import { conditionsHold, coversAction, decide, wildcard, type Decision } from './iam-evaluation';

/**
 * A small model of how an AWS service (here EventBridge, `events.amazonaws.com`) is authorized to
 * send to an SQS queue and to use the KMS key that encrypts it, for the statements this construct
 * writes: a service principal has no identity policy, so the queue's policy and the key's policy
 * decide alone. The request context: `aws:SourceArn` and `aws:SourceAccount` (the rule the service
 * acts for), and for KMS the encryption context SQS passes (`kms:EncryptionContext:aws:sqs:arn`, the
 * queue's ARN; SQS Developer Guide, "Key management"). Values are concrete (template-values.ts).
 */

export interface ServiceRequest {
  readonly service: string;
  /** The rule the service acts for. */
  readonly sourceArn: string;
  readonly sourceAccount: string;
}

/** `sqs:SendMessage` on `queueArn`, by the queue's policy. */
export function evaluateSend(queuePolicy: readonly any[], queueArn: string, request: ServiceRequest): Decision {
  return evaluate(queuePolicy, 'sqs:SendMessage', queueArn, request, {});
}

/** `kms:GenerateDataKey` for a message to `queueArn`, by the key's policy. */
export function evaluateKeyUse(keyPolicy: readonly any[], queueArn: string, request: ServiceRequest): Decision {
  return evaluate(keyPolicy, 'kms:GenerateDataKey', '*', request, { 'kms:EncryptionContext:aws:sqs:arn': queueArn });
}

function evaluate(statements: readonly any[], action: string, resource: string, request: ServiceRequest, extra: Record<string, string>): Decision {
  const applies = (s: any) =>
    coversAction(s, action) &&
    ([] as unknown[]).concat(s.Resource).some((r) => typeof r === 'string' && wildcard(r, resource)) &&
    (s.Principal === '*' || s.Principal?.AWS === '*' || ([] as unknown[]).concat(s.Principal?.Service ?? []).includes(request.service));
  return decide(statements.filter(applies), (s) =>
    conditionsHold(s.Condition, (key) => {
      if (key === 'aws:SourceArn') return [request.sourceArn];
      if (key === 'aws:SourceAccount') return [request.sourceAccount];
      if (key in extra) return [extra[key]];
      if (key === 'aws:SecureTransport') return ['true'];
      throw new Error(`the model does not know the condition key ${key}`);
    }),
  );
}
