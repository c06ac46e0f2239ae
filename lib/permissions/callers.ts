import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';

/**
 * Direct invokes of the handler function: `lambda:InvokeFunction` on the function itself, not on its
 * versions or aliases. A principal without a policy of its own (a service) gets a Lambda permission
 * instead.
 */
export function grantInvokeHandler(grantee: iam.IGrantable, fn: lambda.IFunction): iam.Grant {
  const grant = iam.Grant.addToPrincipal({
    grantee,
    actions: ['lambda:InvokeFunction'],
    resourceArns: [fn.functionArn],
  });
  return grant.success ? grant : fn.grantInvoke(grantee);
}
