import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { IConstruct } from 'constructs';

/**
 * A tool handler as other constructs take it: the function that runs the tools, the queue it takes
 * calls from, and the grants to call it. `ToolHandler` implements it.
 */
export interface IToolHandler extends IConstruct {
  /** The function that runs the tools: invoke it with an envelope (a direct invoke). */
  readonly lambdaFunction: lambda.IFunction;

  /** The queue the function takes tool calls from. */
  readonly queue: sqs.IQueue;

  /** Lets `grantee` send tool calls to the queue (`sqs:SendMessage`, and the key if any). */
  grantSendToolCalls(grantee: iam.IGrantable): iam.Grant;

  /** Lets `grantee` invoke the function directly (`lambda:InvokeFunction` on the function itself). */
  grantInvoke(grantee: iam.IGrantable): iam.Grant;
}
