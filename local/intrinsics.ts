/**
 * Resolves a template's values (`Ref`, `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, `Fn::Select`, `Fn::Split`)
 * to local names: a resource's name is its logical id; an ARN is built in the local account and region.
 */
import type { Template } from './assembly';

export const LOCAL_ACCOUNT = '000000000000';
export const LOCAL_REGION = 'us-east-1';

const PSEUDO: Record<string, string> = {
  'AWS::AccountId': LOCAL_ACCOUNT,
  'AWS::Region': LOCAL_REGION,
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': 'local',
  'AWS::NoValue': '',
};

export class Resolver {
  constructor(
    private readonly template: Template,
    /** Local names that differ from the logical id (e.g. a FIFO queue's `.fifo`). */
    private readonly names: Record<string, string> = {},
  ) {}

  name(logicalId: string): string {
    if (this.names[logicalId]) return this.names[logicalId];
    const r = this.template.Resources?.[logicalId];
    if (r?.Type === 'AWS::SQS::Queue' && r.Properties?.FifoQueue === true) return `${logicalId}.fifo`;
    return logicalId;
  }

  arn(logicalId: string): string {
    const type = this.template.Resources?.[logicalId]?.Type ?? '';
    const name = this.name(logicalId);
    const base = (service: string) => `arn:aws:${service}:${LOCAL_REGION}:${LOCAL_ACCOUNT}`;
    switch (type) {
      case 'AWS::Lambda::Function':
        return `${base('lambda')}:function:${name}`;
      case 'AWS::SQS::Queue':
        return `${base('sqs')}:${name}`;
      case 'AWS::Events::EventBus':
        return `${base('events')}:event-bus/${name}`;
      case 'AWS::DynamoDB::Table':
        return `${base('dynamodb')}:table/${name}`;
      case 'AWS::SNS::Topic':
        return `${base('sns')}:${name}`;
      default:
        return `${base(type.split('::')[1]?.toLowerCase() ?? 'local')}:${name}`;
    }
  }

  /** `Ref`: a name (queues: their URL; topics: their ARN, as CloudFormation answers). */
  ref(logicalId: string): string {
    if (PSEUDO[logicalId] !== undefined) return PSEUDO[logicalId];
    const type = this.template.Resources?.[logicalId]?.Type;
    if (type === 'AWS::SQS::Queue') return `http://127.0.0.1/${LOCAL_ACCOUNT}/${this.name(logicalId)}`;
    if (type === 'AWS::SNS::Topic') return this.arn(logicalId);
    const parameter = (this.template as { Parameters?: Record<string, { Default?: unknown }> }).Parameters?.[logicalId];
    if (parameter) return String(parameter.Default ?? '');
    return this.name(logicalId);
  }

  getAtt(logicalId: string, attribute: string): string {
    switch (attribute) {
      case 'Arn':
        return this.arn(logicalId);
      case 'StreamArn':
        return `${this.arn(logicalId)}/stream/local`;
      case 'QueueName':
      case 'Name':
        return this.name(logicalId);
      case 'QueueUrl':
        return this.ref(logicalId);
      default:
        return `${logicalId}.${attribute}`;
    }
  }

  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (!value || typeof value !== 'object') return value;
    const v = value as Record<string, unknown>;
    const keys = Object.keys(v);
    if (keys.length === 1) {
      const [key] = keys;
      const arg = v[key];
      switch (key) {
        case 'Ref':
          return this.ref(String(arg));
        case 'Fn::GetAtt': {
          const [id, attribute] = Array.isArray(arg) ? arg.map(String) : String(arg).split('.');
          return this.getAtt(id, attribute);
        }
        case 'Fn::Join': {
          const [separator, parts] = arg as [string, unknown[]];
          return (this.resolve(parts) as unknown[]).map(String).join(separator);
        }
        case 'Fn::Select': {
          const [index, list] = arg as [unknown, unknown];
          return (this.resolve(list) as unknown[])[Number(this.resolve(index))];
        }
        case 'Fn::Split': {
          const [separator, text] = arg as [string, unknown];
          return String(this.resolve(text)).split(separator);
        }
        case 'Fn::Sub': {
          const [text, vars] = Array.isArray(arg) ? (arg as [string, Record<string, unknown>]) : [String(arg), {}];
          return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
            if (vars[name] !== undefined) return String(this.resolve(vars[name]));
            const [id, attribute] = name.split('.');
            return attribute ? this.getAtt(id, attribute) : this.ref(id);
          });
        }
        default:
          break;
      }
    }
    return Object.fromEntries(keys.map((k) => [k, this.resolve(v[k])]));
  }

  /** A function's environment variables, resolved to strings. */
  environment(properties: Record<string, any>): Record<string, string> {
    const variables = (properties.Environment?.Variables ?? {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, String(this.resolve(v))]));
  }
}
