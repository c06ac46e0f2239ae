import { Tags } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { TAG } from './tags';
import { otherOwnersRepliesDenial, REPLY_SOURCE_PATTERNS } from './reply-bus';

/** Every way to run a Lambda function by its name or URL. */
const INVOKE_ACTIONS = ['lambda:InvokeFunction', 'lambda:InvokeFunctionUrl', 'lambda:InvokeAsync'];

/** A function the construct tagged as one of its parts (a tool handler or a package function). */
const TAGGED_FUNCTION = { Null: { [`aws:ResourceTag/${TAG.function}`]: 'false' } };

/**
 * The walls every role of `owner` carries, whatever it is later given: its owner tag (which the
 * SCP of docs/security.md reads), no invoke of another owner's functions (its tool handler, which would run
 * its tools, resume its approvals and hand back its kept replies under its role; its approvals
 * functions), and no PutEvents of another owner's reply source. Explicit Denies, so they hold after
 * the role is given `lambda:*` or `events:*` on `*`.
 */
export function wallOffRole(role: iam.IRole, owner: string): void {
  Tags.of(role).add(TAG.owner, owner);
  role.addToPrincipalPolicy(otherOwnersFunctionsDenial(owner));
  role.addToPrincipalPolicy(otherOwnersRepliesDenial(owner));
}

/**
 * A role that serves every owner of a table (the resume pipe's): no invoke of any tagged function
 * and no PutEvents of any reply source, since none of them is its own.
 */
export function wallOffSharedRole(role: iam.IRole): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'CdkToolHandlerNoOwnersFunctions',
      effect: iam.Effect.DENY,
      actions: INVOKE_ACTIONS,
      resources: ['*'],
      conditions: TAGGED_FUNCTION,
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'CdkToolHandlerNoOwnersReplies',
      effect: iam.Effect.DENY,
      actions: ['events:PutEvents'],
      resources: ['*'],
      conditions: { 'ForAnyValue:StringLike': { 'events:source': REPLY_SOURCE_PATTERNS } },
    }),
  );
}

/**
 * No invoke of a function the construct tagged (`cdk-tool-handler:function`) whose owner tag is not
 * `owner`: another owner's handler, engine, API or expirer (Lambda evaluates `aws:ResourceTag` for
 * `InvokeFunction` and `InvokeFunctionUrl`). A tagged function without an owner tag counts as
 * another owner's.
 */
export function otherOwnersFunctionsDenial(owner: string): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'CdkToolHandlerNoOtherOwnersFunctions',
    effect: iam.Effect.DENY,
    actions: INVOKE_ACTIONS,
    resources: ['*'],
    conditions: {
      ...TAGGED_FUNCTION,
      StringNotEquals: { [`aws:ResourceTag/${TAG.owner}`]: owner },
    },
  });
}
