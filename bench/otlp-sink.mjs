// An OpenTelemetry collector stand-in for the tracing rows, in its own process: accepts OTLP/HTTP exports and
// answers 200 at once, so a traced instance pays for making and sending its spans, not for a collector's work.
import { createServer } from 'node:http';

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{}');
  });
});
server.keepAliveTimeout = 10_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
