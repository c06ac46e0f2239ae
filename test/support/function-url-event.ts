import type { LambdaFunctionURLEventWithIAMAuthorizer } from 'aws-lambda';

export const APPROVER_ARN = 'arn:aws:sts::123456789012:assumed-role/ApproverRole/alice';

/**
 * A Lambda function URL event (payload format 2.0) as an AWS_IAM-authenticated URL delivers it:
 * the caller's identity in `requestContext.authorizer.iam`.
 */
export function functionUrlEvent(
  method: string,
  rawPath: string,
  options: { body?: unknown; query?: Record<string, string>; userArn?: string | null } = {},
): LambdaFunctionURLEventWithIAMAuthorizer {
  const query = options.query ?? {};
  const rawQueryString = new URLSearchParams(query).toString();
  const userArn = options.userArn === undefined ? APPROVER_ARN : options.userArn;
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers: { 'content-type': 'application/json', host: 'abc.lambda-url.us-east-1.on.aws' },
    ...(rawQueryString ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc',
      domainName: 'abc.lambda-url.us-east-1.on.aws',
      domainPrefix: 'abc',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'req',
      routeKey: '$default',
      stage: '$default',
      time: '02/Dec/2026:00:00:00 +0000',
      timeEpoch: 0,
      authorizer: {
        iam: {
          accessKey: 'AKIATEST',
          accountId: '123456789012',
          callerId: 'AROATEST:alice',
          cognitoIdentity: null,
          principalOrgId: null,
          userArn: userArn as string,
          userId: 'AROATEST:alice',
        },
      },
    },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: false,
  } as unknown as LambdaFunctionURLEventWithIAMAuthorizer;
}
