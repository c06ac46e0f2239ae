/**
 * A local CloudFormation endpoint that answers `DescribeStacks`, `GetTemplate` and
 * `ListStackResources` in the query protocol's XML (point the SDK at it with
 * `AWS_ENDPOINT_URL_CLOUDFORMATION`). Unknown stacks get the service's 400 `ValidationError`
 * ("Stack with id X does not exist").
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubStack {
  readonly outputs: ReadonlyArray<{ key: string; value: string }>;
  /** `GetTemplate`'s body. @default - an empty template */
  readonly template?: unknown;
  /** `ListStackResources`' summaries. @default - none */
  readonly resources?: ReadonlyArray<{ logicalId: string; physicalId: string; type: string }>;
}

/** The actions the stub answers. */
const ACTIONS = ['DescribeStacks', 'GetTemplate', 'ListStackResources'];

export interface CloudFormationStub {
  readonly endpoint: string;
  /** The form bodies received, parsed. */
  readonly requests: Array<Record<string, string>>;
  /** Their `Authorization` headers (the credential scope names the region). */
  readonly authorizations: string[];
  close(): Promise<void>;
}

const NS = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

export async function startCloudFormationStub(stacks: Readonly<Record<string, StubStack>>): Promise<CloudFormationStub> {
  const requests: Array<Record<string, string>> = [];
  const authorizations: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      requests.push(form);
      authorizations.push(req.headers.authorization ?? '');
      const requestId = `req-${requests.length}`;
      const stack = form.StackName === undefined ? undefined : stacks[form.StackName];
      if (!ACTIONS.includes(form.Action) || !stack) {
        const message = !ACTIONS.includes(form.Action) ? `Unsupported action ${form.Action}` : `Stack with id ${form.StackName} does not exist`;
        res.writeHead(400, { 'content-type': 'text/xml' });
        res.end(
          `<ErrorResponse xmlns="${NS}"><Error><Type>Sender</Type><Code>ValidationError</Code>` +
            `<Message>${escapeXml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
        );
        return;
      }
      if (form.Action !== 'DescribeStacks') {
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end(form.Action === 'GetTemplate' ? templateXml(stack, requestId) : resourcesXml(stack, requestId));
        return;
      }
      const outputs = stack.outputs
        .map((o) => `<member><OutputKey>${escapeXml(o.key)}</OutputKey><OutputValue>${escapeXml(o.value)}</OutputValue></member>`)
        .join('');
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(
        `<DescribeStacksResponse xmlns="${NS}"><DescribeStacksResult><Stacks><member>` +
          `<StackName>${escapeXml(form.StackName)}</StackName>` +
          `<StackId>arn:aws:cloudformation:us-east-1:123456789012:stack/${escapeXml(form.StackName)}/0</StackId>` +
          `<CreationTime>2026-01-01T00:00:00.000Z</CreationTime><StackStatus>CREATE_COMPLETE</StackStatus>` +
          `<Outputs>${outputs}</Outputs>` +
          `</member></Stacks></DescribeStacksResult>` +
          `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function templateXml(stack: StubStack, requestId: string): string {
  return (
    `<GetTemplateResponse xmlns="${NS}"><GetTemplateResult>` +
    `<TemplateBody>${escapeXml(typeof stack.template === 'string' ? stack.template : JSON.stringify(stack.template ?? {}))}</TemplateBody>` +
    `<StagesAvailable><member>Original</member><member>Processed</member></StagesAvailable>` +
    `</GetTemplateResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></GetTemplateResponse>`
  );
}

function resourcesXml(stack: StubStack, requestId: string): string {
  const members = (stack.resources ?? [])
    .map(
      (r) =>
        `<member><LogicalResourceId>${escapeXml(r.logicalId)}</LogicalResourceId><PhysicalResourceId>${escapeXml(r.physicalId)}</PhysicalResourceId>` +
        `<ResourceType>${escapeXml(r.type)}</ResourceType><LastUpdatedTimestamp>2026-01-01T00:00:00.000Z</LastUpdatedTimestamp>` +
        `<ResourceStatus>CREATE_COMPLETE</ResourceStatus></member>`,
    )
    .join('');
  return (
    `<ListStackResourcesResponse xmlns="${NS}"><ListStackResourcesResult><StackResourceSummaries>${members}</StackResourceSummaries>` +
    `</ListStackResourcesResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></ListStackResourcesResponse>`
  );
}
