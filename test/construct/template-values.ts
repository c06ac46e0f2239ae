/**
 * A template's values as AWS would see them once deployed, for the IAM models: `Ref` and
 * `Fn::GetAtt ... Arn` of the resources whose physical name the template fixes (rules, buses,
 * queues, roles) become the ARN or name AWS gives them, pseudo parameters their values, and
 * `Fn::Join` the joined text. A reference to a resource without a fixed name stays a marker
 * (`<Ref LogicalId>`, `<LogicalId.Arn>`) that no ARN written elsewhere can equal by accident.
 */

export interface Where {
  readonly account: string;
  readonly region: string;
  readonly partition?: string;
}

type Resources = Record<string, { Type: string; Properties?: Record<string, any> }>;

export function concrete(value: unknown, resources: Resources, where: Where): unknown {
  const partition = where.partition ?? 'aws';
  const arnOf = (id: string): string => {
    const resource = resources[id];
    const name = physicalName(resource);
    if (name === undefined) return `<${id}.Arn>`;
    const base = `arn:${partition}`;
    switch (resource.Type) {
      case 'AWS::Events::Rule': {
        const bus = resource.Properties?.EventBusName === undefined ? undefined : concrete(resource.Properties.EventBusName, resources, where);
        return `${base}:events:${where.region}:${where.account}:rule/${bus === undefined || bus === 'default' ? '' : `${bus}/`}${name}`;
      }
      case 'AWS::Events::EventBus':
        return `${base}:events:${where.region}:${where.account}:event-bus/${name}`;
      case 'AWS::SQS::Queue':
        return `${base}:sqs:${where.region}:${where.account}:${name}`;
      default:
        return `<${id}.Arn>`;
    }
  };
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const object = node as Record<string, unknown>;
    if ('Ref' in object) {
      const ref = String(object.Ref);
      if (ref === 'AWS::Partition') return partition;
      if (ref === 'AWS::Region') return where.region;
      if (ref === 'AWS::AccountId') return where.account;
      if (ref === 'AWS::URLSuffix') return 'amazonaws.com';
      return physicalName(resources[ref]) ?? `<Ref ${ref}>`;
    }
    if ('Fn::GetAtt' in object) {
      const [id, attribute] = object['Fn::GetAtt'] as [string, string];
      return attribute === 'Arn' ? arnOf(id) : `<${id}.${attribute}>`;
    }
    if ('Fn::Join' in object) {
      const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
      return parts.map((part) => String(walk(part))).join(separator);
    }
    return Object.fromEntries(Object.entries(object).map(([key, child]) => [key, walk(child)]));
  };
  return walk(value);
}

/** The name the template fixes for a resource, where it does. */
function physicalName(resource: { Type: string; Properties?: Record<string, any> } | undefined): string | undefined {
  if (!resource) return undefined;
  const name = resource.Type === 'AWS::SQS::Queue' ? resource.Properties?.QueueName : resource.Properties?.Name;
  return typeof name === 'string' ? name : undefined;
}
