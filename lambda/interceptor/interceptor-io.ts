/**
 * AgentCore Gateway's interceptor contract for MCP (`interceptorInputVersion` / `interceptorOutputVersion`
 * "1.0"): what a REQUEST interceptor receives, and its two answers: the request to send on
 * (`transformedGatewayRequest`, its body and the headers it adds for the target), or a response the
 * Gateway sends back at once without calling the target (`transformedGatewayResponse`).
 */
import { isJsonObject, type JsonObject } from '../json';

/** The part of the input the interceptor reads (`headers` only with `passRequestHeaders`). */
export interface GatewayRequest {
  readonly path?: string;
  readonly httpMethod?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The JSON-RPC request. */
  readonly body?: unknown;
}

export interface InterceptorOutput {
  readonly interceptorOutputVersion: '1.0';
  readonly mcp:
    | { readonly transformedGatewayRequest: { readonly body: unknown; readonly headers?: Readonly<Record<string, string>> } }
    | { readonly transformedGatewayResponse: { readonly statusCode: number; readonly body: JsonRpcError } };
}

export interface JsonRpcError {
  readonly jsonrpc: '2.0';
  readonly id: string | number | null;
  readonly error: { readonly code: number; readonly message: string };
}

/** JSON-RPC error codes of the interceptor's own answers (the implementation-defined server range). */
export const RPC_ERROR = {
  /** The request has no valid bearer token. */
  unauthorized: -32001,
  /** The caller's proof cannot be made (too large, or a batch). */
  proofRefused: -32002,
  /** The identity provider could not be read. */
  unavailable: -32003,
} as const;

/** `mcp.gatewayRequest` of an interceptor's input, if it has one. */
export function gatewayRequestOf(event: unknown): GatewayRequest | undefined {
  const mcp = isJsonObject(event) ? event.mcp : undefined;
  const request = isJsonObject(mcp) ? mcp.gatewayRequest : undefined;
  return isJsonObject(request) ? (request as GatewayRequest) : undefined;
}

/** The request passed on: its body unchanged, with the headers added for the target, if any. */
export function passOn(body: unknown, headers?: Record<string, string>): InterceptorOutput {
  return { interceptorOutputVersion: '1.0', mcp: { transformedGatewayRequest: { body, ...(headers ? { headers } : {}) } } };
}

/** An answer in the Gateway's place: the status and a JSON-RPC error for the request's id. */
export function answerInstead(statusCode: number, body: unknown, code: number, message: string): InterceptorOutput {
  return { interceptorOutputVersion: '1.0', mcp: { transformedGatewayResponse: { statusCode, body: { jsonrpc: '2.0', id: requestId(body), error: { code, message } } } } };
}

function requestId(body: unknown): string | number | null {
  const id = isJsonObject(body) ? body.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** `params` of a JSON-RPC request, if it is an object. */
export function paramsOf(body: JsonObject): JsonObject | undefined {
  return isJsonObject(body.params) ? body.params : undefined;
}
