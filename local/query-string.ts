/** A raw query string, decoded two ways: for a function URL event, and for the SigV4 signer. */

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function queryPairs(raw: string): Array<[string, string]> {
  if (raw === '') return [];
  return raw.split('&').map((pair) => {
    const at = pair.indexOf('=');
    return at < 0 ? [decode(pair), ''] : [decode(pair.slice(0, at)), decode(pair.slice(at + 1))];
  });
}

/** `queryStringParameters`: repeated names joined with commas. */
export function parseQuery(raw: string): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of queryPairs(raw)) query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  return query;
}

/** For the signer: repeated names as arrays. */
export function parseQueryMulti(raw: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of queryPairs(raw)) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}
