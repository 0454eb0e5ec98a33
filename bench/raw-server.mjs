// The baseline: plain node:http answering a constant JSON, the ceiling any framework is measured against.
import { createServer } from 'node:http';

const body = JSON.stringify({ status: 'ok', checks: { database: { status: 'up', latencyMs: 0.5 } } });
createServer((_request, response) => {
  response.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
