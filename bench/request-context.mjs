// A preload (`--import`) that runs every incoming HTTP request inside an AsyncLocalStorage context holding its
// arrival time: the request-scoped context the service keeps out of its request path
// (docs/decisions/2026-11-27-no-cache-ticket.md), measured on the whole service as it is by comparing a run with it
// against a run without (bench/compare-builds.mjs with BASELINE_ROOT=. and AFTER_NODE_OPTIONS). Every promise the
// request creates then carries the context: on Node 20 and 22 through promise hooks, from 24 on through
// AsyncContextFrame. Reading the store is not the cost, so it is not read.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Server } from 'node:http';
import { performance } from 'node:perf_hooks';

const context = new AsyncLocalStorage();
const emit = Server.prototype.emit;

Server.prototype.emit = function (event, ...args) {
  if (event !== 'request') return emit.call(this, event, ...args);
  return context.run({ arrival: performance.now() }, () => emit.call(this, event, ...args));
};
