import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';

/** The expiry schedule's role: invokes the expirer itself (not its versions), nothing else. */
export function invokeExpirerStatement(expirer: lambda.IFunction): iam.PolicyStatement {
  return new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [expirer.functionArn] });
}
