import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULTS } from '../defaults';
import { atPath } from '../errors';
import { ToolEventSourceOptions } from '../options/event-source-options';
import { allowDeadLetters } from './eventbridge-sends';
import { patternAvoidingReplies } from '../replies/reply-loop';
import { ToolHandlerProps } from '../tool-handler-props';
import { validateEventSource } from '../validation';

/** The function takes tool calls from `queue` in batches, reporting each failed message (partial batch responses). */
export function addQueueSource(fn: lambda.IFunction, queue: sqs.IQueue, props: ToolHandlerProps): void {
  fn.addEventSource(
    new sources.SqsEventSource(queue, {
      batchSize: props.batchSize ?? DEFAULTS.batchSize,
      maxBatchingWindow: props.maxBatchingWindow,
      maxConcurrency: props.maxConcurrency,
      reportBatchItemFailures: true,
    }),
  );
}

export interface EventSourceRulesOptions {
  readonly lambdaFunction: lambda.IFunction;
  /** The rule targets' dead-letter queue. */
  readonly deadLetterQueue: sqs.IQueue;
  /** The handler's props: `replyBus` (a rule there must not match replies). */
  readonly props: ToolHandlerProps;
}

/**
 * The EventBridge rules that feed the function, under `EventSources` (made with the first rule):
 * each matching event's `detail` is one envelope.
 */
export class EventSourceRules {
  private readonly ruleList: events.Rule[] = [];
  private home?: Construct;

  /** `scope` is the tool handler: the rules' errors and warnings name it. */
  constructor(private readonly scope: Construct, private readonly options: EventSourceRulesOptions) {}

  /** The rules, in the order they were added. */
  public get rules(): events.IRule[] {
    return [...this.ruleList];
  }

  /** Checks `source`, then adds the rule `EventSources/<id>`; `label` names the source as the user wrote it. */
  public add(id: string, label: string, source: ToolEventSourceOptions): events.Rule {
    return this.addChecked(id, source, checkedEventSource(this.scope, label, source, this.options.props.replyBus));
  }

  /** Adds the rule `EventSources/<id>` for a source already checked, with the pattern `checkedEventSource` gave. */
  public addChecked(id: string, source: ToolEventSourceOptions, eventPattern: events.EventPattern): events.Rule {
    this.home ??= new Construct(this.scope, 'EventSources');
    const rule = new events.Rule(this.home, id, {
      eventBus: source.eventBus,
      eventPattern,
      ruleName: source.ruleName,
      description: source.description,
      enabled: source.enabled,
    });
    rule.addTarget(
      new targets.LambdaFunction(this.options.lambdaFunction, {
        deadLetterQueue: this.options.deadLetterQueue,
        retryAttempts: source.retryAttempts ?? DEFAULTS.ruleRetryAttempts,
        maxEventAge: source.maxEventAge ?? DEFAULTS.ruleMaxEventAge,
      }),
    );
    allowDeadLetters(this.scope, rule, source.eventBus, this.options.deadLetterQueue);
    this.ruleList.push(rule);
    return rule;
  }
}

/**
 * Checks an event source (throwing a message that names `label`, as the user wrote it) and gives the
 * pattern its rule gets: the constructor checks `eventSources` with it before anything is bundled,
 * and later adds their rules with those patterns (`addChecked`).
 */
export function checkedEventSource(
  scope: Construct,
  label: string,
  source: ToolEventSourceOptions,
  replyBus: events.IEventBus | undefined,
): events.EventPattern {
  atPath(scope, () => validateEventSource(label, source));
  return patternAvoidingReplies(scope, label, source.eventPattern, source.eventBus, replyBus);
}
