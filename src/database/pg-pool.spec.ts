import { jest } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { Pool } from 'pg';
import { DatabaseAvailability } from './database-availability.js';
import { pgPoolProvider } from './pg-pool.js';

/** The pool the provider makes, with a client of its as the pool announces one; no server is needed. */
function poolWithClient(): { pool: Pool; client: EventEmitter; lost: jest.Mock } {
  const availability = new DatabaseAvailability();
  const lost = jest.fn();
  availability.lost = lost;
  const provider = pgPoolProvider({ url: 'postgres://nobody@127.0.0.1:1/none' }) as {
    useFactory: (availability: DatabaseAvailability) => Pool;
  };
  const pool = provider.useFactory(availability);
  const client = new EventEmitter();
  pool.emit('connect', client);
  return { pool, client, lost };
}

/** What a backend says when its server is stopped with a fast shutdown (SQLSTATE 57P01). */
const adminShutdown = Object.assign(new Error('terminating connection due to administrator command'), {
  code: '57P01',
});

describe('the application pool', () => {
  it("reports a client's lost connection as an outage", () => {
    const { client, lost } = poolWithClient();
    client.emit('error', adminShutdown);
    expect(lost).toHaveBeenCalledWith(adminShutdown);
  });

  it('reports nothing once it is ending: its clients are being closed on purpose', async () => {
    const { pool, client, lost } = poolWithClient();
    await pool.end();
    client.emit('error', adminShutdown);
    expect(lost).not.toHaveBeenCalled();
  });
});
