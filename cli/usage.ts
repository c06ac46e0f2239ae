/** The help texts. */

export const TOP_USAGE = `Usage: cdk-tool-handler <command>

Commands:
  approvals   List, show and decide approvals through the approvals API (see: approvals --help)

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
