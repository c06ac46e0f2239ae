/**
 * The hosts `toolHandler` answers, in the order it asks them: the first that recognises an event
 * answers it. Gateway calls are told by their context, so they come first; the direct invoke takes
 * whatever is left, so it comes last; before it, events of kinds no host serves are refused. A new
 * host is an adapter file and a line here.
 */
import { bedrockAgentHost } from './bedrock-agent';
import { directHost } from './direct';
import { eventBridgeHost } from './eventbridge';
import { gatewayHost } from './gateway';
import type { AnswerOf } from './host';
import { sqsHost } from './sqs';
import { unservedHost } from './unserved';

export const HOSTS = [gatewayHost, sqsHost, eventBridgeHost, bedrockAgentHost, unservedHost, directHost] as const;

/** What the hosts answer. */
export type HostAnswer = AnswerOf<(typeof HOSTS)[number]>;
