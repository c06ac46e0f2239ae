/** The approvals API's base URL, checked, and the region to sign for. */
import { UsageError } from '../console/errors';

/** `https://<url-id>.lambda-url.<region>.on.aws`: the region is in the host. */
const LAMBDA_URL_HOST = /^[a-z0-9]+\.lambda-url\.([a-z0-9-]+)\.on\.aws$/;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface Endpoint {
  /** The base URL, ending in `/`. */
  readonly baseUrl: URL;
  /** The region that requests are signed for (service `lambda`). */
  readonly region: string;
}

/**
 * A function URL's region is the one in its host; any other URL (a local stand-in) is signed for
 * `fallbackRegion`.
 */
export function toEndpoint(url: string, fallbackRegion: string): Endpoint {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url is not a URL: ${url}`);
  }
  const loopback = LOOPBACK_HOSTS.has(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) {
    throw new UsageError(`The approvals API's URL must be https (http only for 127.0.0.1 or localhost), got: ${url}`);
  }
  if (parsed.search || parsed.hash) throw new UsageError(`The approvals API's URL must have no query or fragment, got: ${url}`);
  if (!parsed.pathname.endsWith('/')) parsed.pathname = `${parsed.pathname}/`;
  const region = LAMBDA_URL_HOST.exec(parsed.hostname)?.[1] ?? fallbackRegion;
  return { baseUrl: parsed, region };
}

/** `--region`, else the environment's region, else `us-east-1`. */
export function defaultRegion(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  return flag ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
}
