import { rm } from 'node:fs/promises';

export default async function globalTeardown() {
  const started = globalThis.__TOLLGATE_PG__;
  if (!started) return;
  await started.pg.stop();
  await rm(started.dir, { recursive: true, force: true });
}
