/**
 * Stands in for Step Functions and Lambda's durable executions as the flows waiting for a call see
 * them: a token or callback id is completed once; a second completion, or one of a flow that was
 * never waiting or has closed, is refused as AWS refuses it (local/flow-completions.ts), so the
 * handler's record of a closed flow is exercised for real. Who waits registers first
 * (`waitForTask`, `waitForCallback`), or an `onCompletion` forwards completions to an interpreter.
 *
 * The completions arrive through the local endpoints (local/endpoints.ts), behind their SigV4
 * front: a local run serves them on its own endpoints, with its own keys (`LocalRun`'s
 * `flowEngines`); `startFlowEngines` serves them on endpoints of their own, for the keys it is given.
 */
import type { EndpointAccess } from './endpoint-access';
import { startEndpoints, type LocalEndpoints } from './endpoints';
import type { CompleteFlow, CompletionOutcome, EngineCompletion } from './flow-completions';

export type { EngineCompletion } from './flow-completions';

export interface FlowEngines {
  /** Hands a completion to the flow that waits for it (what the endpoints call: `EndpointHandlers.completeFlow`). */
  readonly complete: CompleteFlow;
  /** A task waiting with this token: resolves with its one completion. */
  waitForTask(token: string): Promise<EngineCompletion>;
  /** A durable callback waiting with this id: resolves with its one completion. */
  waitForCallback(callbackId: string): Promise<EngineCompletion>;
  /** The flow stops waiting (it timed out): a later completion is refused as closed. */
  timeOut(id: string): void;
  /** Every completion that passed the endpoints' front, taken or refused, in order. */
  readonly received: readonly EngineCompletion[];
}

export interface FlowEnginesOptions {
  /**
   * Takes a completion of an id nobody registered (e.g. forwards it to an interpreter); returns
   * false when no flow waits for it. @default - refused as unknown
   */
  readonly onCompletion?: (completion: EngineCompletion) => boolean | Promise<boolean>;
}

export function flowEngines(options: FlowEnginesOptions = {}): FlowEngines {
  const waiting = new Map<string, (completion: EngineCompletion) => void>();
  const finished = new Set<string>();
  const received: EngineCompletion[] = [];

  const register = (id: string) =>
    new Promise<EngineCompletion>((resolve) => {
      waiting.set(id, resolve);
    });

  const complete = async (completion: EngineCompletion): Promise<CompletionOutcome> => {
    received.push(completion);
    const waiter = waiting.get(completion.id);
    if (waiter) {
      waiting.delete(completion.id);
      finished.add(completion.id);
      waiter(completion);
      return 'taken';
    }
    if (finished.has(completion.id)) return 'closed';
    if (options.onCompletion && (await options.onCompletion(completion))) {
      finished.add(completion.id);
      return 'taken';
    }
    return 'unknown';
  };

  return {
    complete,
    waitForTask: register,
    waitForCallback: register,
    timeOut(id) {
      waiting.delete(id);
      finished.add(id);
    },
    received,
  };
}

/** Flow engines on endpoints of their own (`AWS_ENDPOINT_URL_SFN`, `AWS_ENDPOINT_URL_LAMBDA`), which serve completions only. */
export interface FlowEnginesStandIn extends FlowEngines, LocalEndpoints {}

export async function startFlowEngines(access: EndpointAccess, options: FlowEnginesOptions = {}): Promise<FlowEnginesStandIn> {
  const engines = flowEngines(options);
  const endpoints = await startEndpoints({ completeFlow: engines.complete }, access);
  return { ...engines, url: endpoints.url, close: () => endpoints.close() };
}
