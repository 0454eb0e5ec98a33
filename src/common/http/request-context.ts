import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  /** `performance.now()` when the request arrived. */
  readonly arrivedAt: number;
}

/** Per-request facts that deep layers need without threading them through every call (set in app.ts). */
export const requestContext = new AsyncLocalStorage<RequestContext>();
