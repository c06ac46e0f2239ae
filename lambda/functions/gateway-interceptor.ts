/**
 * Entry of the Gateway interceptor function (`addToGateway` with `callerIdentity`), invoked by
 * AgentCore Gateway before each request reaches a target; configured by the construct's
 * environment.
 */
import { gatewayInterceptor } from '../interceptor/intercept';
import { interceptorSettings } from '../interceptor/settings';

export const handler = gatewayInterceptor({ settings: interceptorSettings() });
