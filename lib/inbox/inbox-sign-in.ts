import { Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { fail } from '../errors';

/** How approvers sign in to an existing OpenID Connect provider (IAM Identity Center, Okta, Entra ID, ...). */
export interface OidcInboxSignInOptions {
  /** The issuer: a token's `iss`; its discovery document is at `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string;

  /** The app client registered for the inbox: public (no secret), authorization code with PKCE, redirect URI the inbox's URL. */
  readonly clientId: string;

  /**
   * Another audience a token's `aud` may hold, besides the client id (which an ID token's `aud` is):
   * for access tokens issued for an API of yours.
   *
   * @default - the client id only (and an access token whose `client_id` is the client's)
   */
  readonly audience?: string;

  /**
   * The scopes the page asks for.
   *
   * @default ['openid', 'email', 'profile']
   */
  readonly scopes?: string[];

  /**
   * The claim that lists a user's groups, which `approvers` names.
   *
   * @default 'groups'
   */
  readonly groupsClaim?: string;
}

/** A new Cognito user pool for the inbox's approvers. */
export interface CognitoInboxSignInOptions {
  /**
   * The prefix of the pool's managed login domain (`<prefix>.auth.<region>.amazoncognito.com`): unique in
   * the region, lowercase letters, digits and hyphens, without `aws`, `amazon` or `cognito`.
   *
   * @default - derived from the inbox's construct path
   */
  readonly domainPrefix?: string;

  /**
   * What happens to the user pool when it leaves the stack.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/** What the inbox function and its page are configured with. */
export interface InboxSignInConfig {
  /** The issuer (a token's `iss`). */
  readonly issuer: string;
  /** The page's app client. */
  readonly clientId: string;
  /** What a token's `aud` must hold. */
  readonly audience: string;
  /** The scopes the page asks for. */
  readonly scopes: string[];
  /** The claim that lists a user's groups. */
  readonly groupsClaim: string;
  /**
   * Where the page signs in and exchanges its code, when known at synth.
   *
   * @default - read from the issuer's discovery document
   */
  readonly authorizationEndpoint?: string;
  /** @default - read from the issuer's discovery document */
  readonly tokenEndpoint?: string;
  /**
   * Where signing out ends the provider's session.
   *
   * @default - the discovery document's `end_session_endpoint`, if it names one
   */
  readonly endSessionEndpoint?: string;
  /** The Cognito user pool, when the inbox made one. @default - none */
  readonly userPool?: cognito.IUserPool;
}

/** How approvers sign in to the inbox: a new Cognito user pool (the default), or an existing OpenID Connect provider. */
export abstract class InboxSignIn {
  /**
   * A new Cognito user pool with managed login and a public app client (authorization code with PKCE,
   * no client secret) whose callback is the inbox's URL. Users are added by an administrator (no
   * self sign-up); the pool's groups (`cognito:groups`) are what `approvers` names.
   */
  public static cognito(options: CognitoInboxSignInOptions = {}): InboxSignIn {
    return new CognitoSignIn(options);
  }

  /** An existing OpenID Connect provider, with an app client registered for the inbox. */
  public static oidc(options: OidcInboxSignInOptions): InboxSignIn {
    return new OidcSignIn(options);
  }

  /**
   * Makes what the sign-in needs in `scope`, for an inbox served at `inboxUrl`, and says how to configure the inbox.
   *
   * @param groups the group names that `approvers` uses
   */
  public abstract bind(scope: Construct, inboxUrl: string, groups: string[]): InboxSignInConfig;
}

const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

class OidcSignIn extends InboxSignIn {
  constructor(private readonly options: OidcInboxSignInOptions) {
    super();
  }

  public bind(scope: Construct): InboxSignInConfig {
    const { issuer, clientId } = this.options;
    if (!/^https:\/\/[^\s]+$/.test(issuer) && !/^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?(\/[^\s]*)?$/.test(issuer)) {
      fail('InboxSignIn.oidc: `issuer` must be an https URL (the value of the tokens\' `iss`).', scope);
    }
    if (clientId.trim() === '') fail('InboxSignIn.oidc: `clientId` must name the app client registered for the inbox.', scope);
    return {
      issuer: issuer.replace(/\/+$/, ''),
      clientId,
      audience: this.options.audience ?? clientId,
      scopes: this.options.scopes ?? DEFAULT_SCOPES,
      groupsClaim: this.options.groupsClaim ?? 'groups',
    };
  }
}

class CognitoSignIn extends InboxSignIn {
  constructor(private readonly options: CognitoInboxSignInOptions) {
    super();
  }

  public bind(scope: Construct, inboxUrl: string, groups: string[]): InboxSignInConfig {
    const pool = new cognito.UserPool(scope, 'UserPool', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      passwordPolicy: { minLength: 12, requireDigits: true, requireLowercase: true, requireUppercase: true, requireSymbols: true },
      // Approvers decide refunds and deletions: a second factor, an authenticator app.
      mfa: cognito.Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      removalPolicy: this.options.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    Validations.of(pool).acknowledge({
      id: 'AwsSolutions-COG8',
      reason: 'The Plus feature plan (threat protection) is priced per user; the pool requires MFA, admits no self sign-up, and a user who wants Plus sets it on `userPool`.',
    });
    const domainPrefix = this.options.domainPrefix ?? defaultDomainPrefix(scope);
    if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(domainPrefix) || /aws|amazon|cognito/.test(domainPrefix)) {
      fail('InboxSignIn.cognito: `domainPrefix` must be 1 to 63 lowercase letters, digits or hyphens (not at either end), without aws, amazon or cognito.', scope);
    }
    const domain = pool.addDomain('Domain', {
      cognitoDomain: { domainPrefix },
      managedLoginVersion: cognito.ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });
    const client = pool.addClient('Client', {
      generateSecret: false,
      authFlows: {},
      preventUserExistenceErrors: true,
      supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
        callbackUrls: [inboxUrl],
        logoutUrls: [inboxUrl],
      },
    });
    new cognito.CfnManagedLoginBranding(scope, 'ManagedLogin', {
      userPoolId: pool.userPoolId,
      clientId: client.userPoolClientId,
      useCognitoProvidedValues: true,
    });
    groups.forEach((group, i) => {
      new cognito.CfnUserPoolGroup(scope, `Group${i + 1}`, {
        userPoolId: pool.userPoolId,
        groupName: group,
        description: 'cdk-tool-handler approvals inbox: members may decide the approvals this group is given.',
      });
    });
    const base = domain.baseUrl();
    return {
      issuer: pool.userPoolProviderUrl,
      clientId: client.userPoolClientId,
      audience: client.userPoolClientId,
      scopes: DEFAULT_SCOPES,
      groupsClaim: 'cognito:groups',
      authorizationEndpoint: `${base}/oauth2/authorize`,
      tokenEndpoint: `${base}/oauth2/token`,
      endSessionEndpoint: `${base}/logout`,
      userPool: pool,
    };
  }
}

/** A domain prefix unique to the inbox in its stack, within Cognito's rules. */
function defaultDomainPrefix(scope: Construct): string {
  const stack = Stack.of(scope);
  const unique = Names.uniqueResourceName(scope, { maxLength: 40 }).toLowerCase().replace(/aws|amazon|cognito/g, 'x').replace(/[^a-z0-9]/g, '');
  return `inbox-${stack.stackName.toLowerCase().replace(/aws|amazon|cognito/g, 'x').replace(/[^a-z0-9]/g, '').slice(0, 12)}-${unique}`.slice(0, 63).replace(/-+$/, '');
}
