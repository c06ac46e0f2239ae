/**
 * The Gateway's REQUEST interceptor (docs: "Who asked"): every request must carry a valid bearer
 * token of the trusted issuer (bearer-token.ts), or the interceptor answers it with a 401 in the
 * Gateway's place and the target is never called. A `tools/call` with a valid token goes on with the
 * caller's proof (statement.ts, signed with KMS) in the header the target allowlists; any other
 * request goes on unchanged. The body always passes unchanged: the proof is the only thing added.
 */
import { CALLER_PROOF_HEADER, proofOf } from '../caller-proof';
import { isJsonObject } from '../json';
import { logWarning } from '../log';
import { checkBearerToken } from './bearer-token';
import { answerInstead, gatewayRequestOf, paramsOf, passOn, RPC_ERROR, type InterceptorOutput } from './interceptor-io';
import { kmsSigner, type PayloadSigner } from './kms-signer';
import type { InterceptorSettings } from './settings';
import { callerStatement } from './statement';

export interface GatewayInterceptorOptions {
  readonly settings: InterceptorSettings;
  /** @default - KMS `Sign` with `settings.keyId` */
  readonly sign?: PayloadSigner;
}

const TOOLS_CALL = 'tools/call';

export function gatewayInterceptor(options: GatewayInterceptorOptions): (event: unknown) => Promise<InterceptorOutput> {
  const { settings } = options;
  const sign = options.sign ?? kmsSigner(settings.keyId);
  return async (event) => {
    const request = gatewayRequestOf(event);
    if (request === undefined) {
      throw new TypeError('cdk-tool-handler: the Gateway interceptor takes an AgentCore interceptor input (`mcp.gatewayRequest`), and this event has none.');
    }
    const { body } = request;
    const token = await checkBearerToken(request.headers, settings);
    if (!token.ok) {
      logWarning('gateway request refused', { status: token.status, reason: token.reason });
      return token.status === 401
        ? answerInstead(401, body, RPC_ERROR.unauthorized, `Unauthorized: ${token.reason}.`)
        : answerInstead(503, body, RPC_ERROR.unavailable, `Service unavailable: ${token.reason}; try again later.`);
    }
    if (Array.isArray(body)) {
      if (!body.some((item) => methodOf(item) === TOOLS_CALL)) return passOn(body);
      return refuseProof(body, "A batch of JSON-RPC requests cannot carry a caller's proof: send each tools/call on its own.");
    }
    if (!isJsonObject(body) || body.method !== TOOLS_CALL) return passOn(body);
    const params = paramsOf(body);
    // A call without a tool name runs nothing: the Gateway refuses it itself.
    if (typeof params?.name !== 'string') return passOn(body);
    const statement = callerStatement(token.issuer, token.claims, { tool: params.name, args: params.arguments ?? {} }, settings.claims);
    if (!statement.ok) return refuseProof(body, statement.reason);
    const signature = await sign(statement.payload);
    return passOn(body, { [CALLER_PROOF_HEADER]: proofOf(statement.payload, signature) });
  };
}

function refuseProof(body: unknown, reason: string): InterceptorOutput {
  logWarning('gateway request refused', { status: 400, reason });
  return answerInstead(400, body, RPC_ERROR.proofRefused, reason);
}

function methodOf(body: unknown): unknown {
  return isJsonObject(body) ? body.method : undefined;
}
