/**
 * The local servers listen on 127.0.0.1 only, but a web page can still reach them through a name
 * that resolves there (DNS rebinding): its requests carry that name as `Host`. Only this machine's
 * own names for the server are accepted.
 */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  const value = (host ?? '').toLowerCase();
  return value === `127.0.0.1:${port}` || value === `localhost:${port}`;
}
