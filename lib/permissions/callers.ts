import { Stack } from 'aws-cdk-lib';
import * as bedrock from 'aws-cdk-lib/aws-bedrock';
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

/**
 * `lambda:InvokeFunction` on `fn` itself, not on its versions (the construct publishes none): no
 * wildcard. The tool handler's role invokes its engine with it, the expiry schedule's role the expirer.
 */
export function invokeFunctionStatement(fn: lambda.IFunction): iam.PolicyStatement {
  return new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] });
}

/**
 * Amazon Bedrock Agents invoke an action group's function as the Bedrock service: a Lambda
 * permission for `bedrock.amazonaws.com`, scoped to the one agent (its ARN, and its account).
 */
export function permitBedrockAgent(fn: lambda.IFunction, id: string, agent: bedrock.CfnAgent): void {
  fn.addPermission(id, {
    principal: new iam.ServicePrincipal('bedrock.amazonaws.com'),
    action: 'lambda:InvokeFunction',
    sourceArn: agent.attrAgentArn,
    sourceAccount: Stack.of(agent).account,
  });
}
