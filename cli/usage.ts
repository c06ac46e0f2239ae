/** The help texts. */

export const TOP_USAGE = `Usage: cdk-tool-handler <command>

Commands:
  approvals   List, show and decide approvals through the approvals API (see: approvals --help)
  audit       Read the audit records: who asked, what ran, who decided (see: audit --help)
  local       Run a stack's ToolHandler on this machine, no AWS account needed (see: local --help)

Options:
  -h, --help  Show help
`;

export const APPROVALS_USAGE = `Usage:
  cdk-tool-handler approvals list   [--status S] [--page-size N] <where> [--json]
  cdk-tool-handler approvals show    ID <where> [--json]
  cdk-tool-handler approvals approve ID [--reason R] [--yes] <where> [--json]
  cdk-tool-handler approvals deny    ID [--reason R] [--yes] <where> [--json]

Where the approvals API is (one of):
  --url URL          The API's function URL (https://<id>.lambda-url.<region>.on.aws/)
  --stack NAME       Read the URL from the stack output whose key ends in ApprovalsApiUrl
  --output KEY       With --stack: which output, when the stack has several
  --local            The running \`cdk-tool-handler local\` of this directory (signed with the
                     run's own approver keys, from its state file, as its approver principal)

Options:
  --region R         Region of --stack, and of signing when the URL is not a lambda-url host
                     (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's region, us-east-1)
  --status S         list: only pending, approved, denied or expired (default: every status)
  --page-size N      list: records asked per request, 1-100 (default 100); list reads every page
  --reason R         approve/deny: the reason kept with the decision
  -y, --yes          approve/deny: decide without asking (the details are still printed)
  --json             Print the API's JSON (list: every page, as { "approvals": [...] });
                     details and the question go to stderr, errors are JSON on stderr
  -h, --help         Show this help

approve and deny first read the approval and print its tool, arguments, run and call ids, status
and expiry, then ask for confirmation on the terminal unless --yes. Without a terminal (stdin is
not a TTY) they refuse unless --yes is given.

Requests are signed (SigV4) with your AWS credentials from the SDK's default chain: environment
variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), AWS_PROFILE with
~/.aws/config and ~/.aws/credentials (aws configure, aws sso login), web identity, container or
instance roles. The caller needs the construct's grantApprove.

Exit codes:
  0  done
  1  the request failed or was not made: API error, network, credentials, stack lookup,
     or the confirmation was declined
  2  bad usage: unknown command or option, missing ID, or no terminal to confirm on without --yes
`;

export const LOCAL_USAGE = `Usage:
  cdk-tool-handler local [--app CMD | --assembly DIR] [--stack NAME] [options] [ENVELOPE_JSON ...]
  cdk-tool-handler local demo [--app CMD | --assembly DIR] [--stack NAME] [--json]
  cdk-tool-handler local --mcp [--port N] [--app CMD | --assembly DIR] [--stack NAME] [options]
  cdk-tool-handler local --calls FILE [--approve all|none] [--timeout S] [--app CMD | --assembly DIR] [options]
  cdk-tool-handler local --flow ID [--input JSON] [--app CMD | --assembly DIR] [options]
  cdk-tool-handler local call ENVELOPE... | --file FILE [--json]

Runs a stack's ToolHandler on this machine: synthesizes the app (cdk synth, with --app or the
cdk.json here; or takes --assembly, a cdk.out directory), starts an embedded DynamoDB (dynalite)
with the approvals table as the template declares it, and runs the synthesized handler, approvals
engine, approvals API and expirer in this process with the environment the template gives them.
Then it sends the envelopes (one SQS batch, as the tool queue would) and prints every reply and
every reply-bus event. It keeps serving the approvals API for \`approvals ... --local\` until
Ctrl-C; after a decision it sends the resume envelope the stack's pipe would, and says so.

\`local call\` sends envelopes to the running \`local\` of this app folder (started in it or a folder
above), as direct invokes of its tool handler, and prints each reply; the run prints the rest.

\`local demo\` runs the sample's whole lifecycle step by step (a call, an approval, the decision
through the API, the resume, a denial, an expiry) and exits 1 if a step does not answer as expected.

\`local --calls FILE\` runs your own calls to their end and exits: each line of FILE is one envelope
(JSON Lines), sent as a direct invoke; every approval a call asks for is decided as --approve says,
through the local approvals API as the run's approver (--principal), and the resume runs as the
stack's resume path sends it. stdout gets one line per call, in FILE's order:
  LINE TOOL ENDED [RESULT_JSON] [(APPROVAL_ID DECISION)][: MESSAGE]
(with --json, one object per call); the run's own lines go to stderr. ENDED is ok, already_done,
pending_approval (undecided), the error's type (ApprovalDenied, ToolUsageError, ...), timeout or
interrupted. Exits 0 only when every call ended ok, or ApprovalDenied under --approve none.

Options:
  --app CMD          The CDK app to synthesize (default: cdk.json's "app")
  --assembly DIR     A synthesized cloud assembly (skips synth)
  --stack NAME       Which stack, when several have a ToolHandler
  --handler PATH     Which ToolHandler (construct path), when the stack has several
  -f, --file F       Envelopes from a file: a JSON array
  --direct           Invoke the handler directly with each envelope instead of an SQS batch
  --once             Exit once the envelopes are answered (do not serve)
  --expire-every S   Seconds between runs of the expirer (default 1)
  --principal ARN    Who the local approvals API says decided (default
                     arn:aws:sts::000000000000:assumed-role/Approver/alice)
  --mcp              Also serve the stack's AgentCore Gateway target tools over MCP (Streamable
                     HTTP) at http://127.0.0.1:<port>/mcp, as the Gateway would: its tools/list
                     and tools/call; clients send the bearer token it prints, the same on
                     every run of this app folder
  --new-mcp-token    With --mcp: replace that token with a new one (the old one stops working)
  --port N           The MCP server's port (default 8931; 0 picks a free one)
  --calls FILE       Run the envelopes of FILE (one per line) to their end, then exit (above)
  --approve all|none With --calls: approve, or deny, every approval its calls ask for
                     (default: leave them undecided, which ends those calls pending_approval)
  --timeout S        With --calls: seconds each call may take from its send to its last reply,
                     a decision and its resume included (default 60)
  --flow ID          Run the stack's state machine ID (its construct id) to its end in a local Step
                     Functions interpreter, its tasks against this run's handler, then exit; a task
                     that waits for an approval waits for \`approvals approve ID --local\`
  --input JSON       With --flow: the state machine's input (default {})
  --logs             Print the functions' own log lines (on stderr)
  --json             One JSON object per line on stdout
  -h, --help         Show this help

Needs, installed in your project beside this package (npm i -D ...):
  dynalite           the embedded DynamoDB
  @aws-sdk/client-dynamodb @aws-sdk/lib-dynamodb @aws-sdk/client-lambda @aws-sdk/client-eventbridge
                     the clients the functions expect from the Lambda runtime: optional peer
                     dependencies of this package, which npm does not install by itself
  aws-cdk            to synthesize (not needed with --assembly)
A missing one is an error that names it. A stack without a reply bus gets a local one, so that
replies of queued calls can be printed.

SIGINT (Ctrl-C) or SIGTERM stops the run cleanly (a second one at once); started through npx, a
SIGTERM sent to npx stops it too. Exit codes: 0 done (a serving run stopped by a signal included);
1 failed, or with --calls a call did not end as asked; 2 bad usage; 130 or 143 stopped by SIGINT or
SIGTERM before it was done.
`;

export const AUDIT_USAGE = `Usage:
  cdk-tool-handler audit [--since T] [--caller ID] [--tool NAME] [--approval ID] --stack NAME [--output KEY] [--region R] [--json]
  cdk-tool-handler audit [--since T] [--caller ID] [--tool NAME] [--approval ID] --local [--json]

Prints the audit records: one per call (every outcome), one per decision and one per expiry,
newest last, one line each:
  TIME  EVENT  TOOL  OUTCOME  asked by CALLER  [approval ID]  [decided by PRINCIPAL]
With --json, one record per line, as the function wrote it.

Where the records are (one of):
  --stack NAME       The stack's log groups in CloudWatch Logs: those of the functions the
                     construct tags cdk-tool-handler:function (the handler, the approvals API and
                     the expirer), found in the stack's template (GetTemplate, ListStackResources)
                     and read with FilterLogEvents
  --output KEY       With --stack: only the ToolHandler whose approvals API URL is this output
                     (a key ending in ApprovalsApiUrl), when the stack has several
  --local            The running \`cdk-tool-handler local\` of this directory (its audit file)

Filters:
  --since T          Records from this time on: a duration back from now (30s, 15m, 12h, 7d, 2w)
                     or an ISO 8601 time (2026-12-01T09:00:00Z) (default: the last 24 hours)
  --caller ID        Only the records of calls made for this caller (enduser.id)
  --tool NAME        Only this tool's records (gen_ai.tool.name)
  --approval ID      Only this approval's records: the call that asked, the decision or expiry,
                     the resume

Options:
  --region R         Region of --stack (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's)
  --json             One JSON record per line on stdout; errors are JSON on stderr
  -h, --help         Show this help

Reading the records needs the construct's grantReadAudit (logs:FilterLogEvents on those log
groups, cloudformation:GetTemplate and ListStackResources of the stack), with your AWS
credentials from the SDK's default chain (AWS_PROFILE, the AWS_* variables, a role).

Exit codes:
  0  done (no record is not an error)
  1  the records could not be read: credentials, stack lookup, CloudWatch Logs, no local run
  2  bad usage: unknown option, a bad --since, no --stack or --local
`;
