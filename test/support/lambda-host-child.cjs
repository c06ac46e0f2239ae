// Runs one bundled Lambda handler behind Lambda's Invoke API on 127.0.0.1, in a process of its own (its
// environment is the function's). Prints {"port": N} on its first stdout line. Used by lambda-host.ts.
const http = require('node:http');
const { handler } = require(process.argv[2]);

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', async () => {
    const requestId = `req-${Date.now()}-${Math.random().toString(16).slice(2)}`;
    const end = Date.now() + Number(process.env.HOST_TIMEOUT_MS || 10000);
    const context = { awsRequestId: requestId, functionName: 'local', getRemainingTimeInMillis: () => end - Date.now() };
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      const result = await handler(text ? JSON.parse(text) : {}, context);
      response.writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' });
      response.end(JSON.stringify(result ?? null));
    } catch (error) {
      response.writeHead(200, { 'content-type': 'application/json', 'x-amz-function-error': 'Unhandled' });
      response.end(JSON.stringify({ errorType: error?.name ?? 'Error', errorMessage: error?.message ?? String(error) }));
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
