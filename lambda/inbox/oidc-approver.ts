/**
 * Approvers of the inbox: the bearer token of every `/api/` request, verified here whatever sits in
 * front (the issuer's JWKS signature, `iss`, `aud` or `client_id`, `exp`, `nbf`, and `token_use` when
 * the issuer sets one), with the verifier the Gateway interceptor uses (jose). The approver is
 * `oidc:<issuer>#<sub>`; its groups decide which owners' approvals it sees.
 */
import { checkBearerToken } from '../interceptor/bearer-token';
import { Unauthenticated, type Approver } from '../approvals/authenticate';
import type { LambdaFunctionURLEvent } from 'aws-lambda';
import type { InboxSettings } from './settings';
import { EVERYONE } from './settings';

/** An approver signed in to the inbox, with the owners whose approvals it may see and decide. */
export interface InboxApprover extends Approver {
  readonly owners: readonly string[];
}

/** Token uses the inbox accepts (Cognito's `token_use`); other issuers set none. */
const TOKEN_USES = ['id', 'access'];

/** Thrown when the issuer's keys cannot be read: 503, the provider's trouble, not the approver's. */
export class IssuerUnreachable extends Error {}

export async function oidcApprover(event: LambdaFunctionURLEvent, settings: InboxSettings): Promise<InboxApprover> {
  const check = await checkBearerToken(event.headers, {
    discoveryUrl: `${settings.issuer}/.well-known/openid-configuration`,
    audiences: settings.audiences,
    clients: [settings.clientId],
  });
  if (!check.ok) {
    if (check.status === 503) throw new IssuerUnreachable(`The sign-in provider could not be reached: ${check.reason}.`);
    throw new Unauthenticated(401, `Sign in again: ${check.reason}.`);
  }
  const { claims, issuer } = check;
  if (claims.token_use !== undefined && !TOKEN_USES.includes(String(claims.token_use))) {
    throw new Unauthenticated(401, 'Sign in again: the token is neither an ID token nor an access token (`token_use`).');
  }
  const groupsValue = claims[settings.groupsClaim];
  const groups = Array.isArray(groupsValue) ? groupsValue.filter((g): g is string => typeof g === 'string') : typeof groupsValue === 'string' ? [groupsValue] : [];
  const owners = settings.handlers
    .map((h) => h.owner)
    .filter((owner) => (settings.approvers[owner] ?? [EVERYONE]).some((group) => group === EVERYONE || groups.includes(group)));
  const name = [claims.email, claims['cognito:username'], claims.preferred_username, claims.username].find((v) => typeof v === 'string');
  return { id: `oidc:${issuer}#${claims.sub}`, ...(name ? { displayName: name as string } : {}), owners };
}
