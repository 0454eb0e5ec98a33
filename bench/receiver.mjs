// A webhook receiver for the delivery bench, in its own process so that it does not share an event loop with the
// load generator: answers 204 on keep-alive connections and notes when each renewal's event arrived (wall-clock ms,
// comparable across processes), keyed by address and new period end, with the event's own timestamp (when its
// transaction recorded it, by the database's clock on this same machine). The parent asks for the notes over IPC.
import { createServer } from 'node:http';

let arrivals = [];
const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    const event = JSON.parse(Buffer.concat(chunks).toString());
    arrivals.push([
      `${event.data.address.toLowerCase()}|${event.data.currentPeriodEnd}`,
      at,
      Date.parse(event.timestamp),
    ]);
    response.statusCode = 204;
    response.end();
  });
});
// Longer than the delivery client's 4 s idle timeout, so the client is the side that closes idle connections.
server.keepAliveTimeout = 10_000;

process.on('message', (message) => {
  if (message === 'collect') {
    process.send({ arrivals });
    arrivals = [];
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send('ready'));
