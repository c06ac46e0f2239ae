import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';

/**
 * The key that signs Gateway callers' proofs: only the interceptor's role may sign with it (its role
 * policy allows `kms:Sign`, and the key's own policy denies `kms:Sign` to every other principal, so
 * no role of the account signs a proof even after it is given `kms:*`); the tool handlers may only
 * read its public half (`kms:GetPublicKey`), with which they check a proof.
 */
export function onlyInterceptorSigns(key: kms.Key, interceptorRole: iam.IRole): void {
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'OnlyTheGatewayInterceptorSigns',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['kms:Sign'],
      resources: ['*'],
      conditions: { ArnNotEquals: { 'aws:PrincipalArn': interceptorRole.roleArn } },
    }),
  );
  interceptorRole.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['kms:Sign'], resources: [key.keyArn] }));
}

/** A tool handler checks proofs with the key's public half, and may do nothing else with the key. */
export function proofCheckStatement(key: kms.IKey): iam.PolicyStatement {
  return new iam.PolicyStatement({ actions: ['kms:GetPublicKey'], resources: [key.keyArn] });
}
