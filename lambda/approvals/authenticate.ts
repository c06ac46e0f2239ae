/**
 * Who is deciding: the one step of the approvals API that reads the caller's identity. The API
 * behind its IAM function URL takes the signer (`iamApprover`); the inbox takes a verified OpenID
 * Connect token (lambda/inbox/oidc-approver.ts). Every route runs it, and a decision records what it
 * returns as `decided_by`, never a field of the request.
 */
import type { LambdaFunctionURLEvent } from 'aws-lambda';

/** An authenticated approver. */
export interface Approver {
  /** What a decision records as `decided_by`: an IAM principal's ARN, or `oidc:<issuer>#<sub>`. */
  readonly id: string;
  /** A name to show people (an email or username), when the identity has one. */
  readonly displayName?: string;
}

/** Reads and checks the caller's identity from a request; throws `Unauthenticated` when there is none. */
export type Authenticate = (event: LambdaFunctionURLEvent) => Promise<Approver>;

/** A request whose caller could not be authenticated: 403 behind IAM (AWS checked the signature), 401 for a bearer token. */
export class Unauthenticated extends Error {
  constructor(
    readonly statusCode: 401 | 403,
    message: string,
  ) {
    super(message);
    this.name = 'Unauthenticated';
  }
}

/**
 * The signer of a request to an AWS_IAM function URL, as AWS verified it:
 * `requestContext.authorizer.iam.userArn`, verbatim.
 */
export const iamApprover: Authenticate = async (event) => {
  const iam = (event.requestContext as { authorizer?: { iam?: { userArn?: unknown } } } | undefined)?.authorizer?.iam;
  const userArn = iam?.userArn;
  if (typeof userArn !== 'string' || userArn.length === 0) {
    throw new Unauthenticated(403, 'The request carries no IAM identity: call the API through its function URL, signed with SigV4.');
  }
  return { id: userArn };
};
