import { writesOf } from './database.service.js';

describe('writesOf', () => {
  const writes = writesOf(['api_keys', 'subscriptions']);

  it.each([
    'UPDATE api_keys SET revoked_at = now() WHERE id = $1',
    'INSERT INTO "subscriptions" (address) VALUES ($1)',
    'delete from api_keys where id = $1',
    'WITH s AS (UPDATE subscriptions SET status = $1 RETURNING *) SELECT * FROM s',
    'UPDATE api_keys AS k SET last_used_at = u.used_at FROM unnest($1::uuid[]) AS u(id)',
  ])('finds a write of a listed table in %s', (text) => {
    expect(writes.test(text)).toBe(true);
  });

  it.each([
    'SELECT * FROM api_keys WHERE id = $1',
    'INSERT INTO api_key_usage_daily (key_id, day, count) VALUES ($1, $2, $3)',
    'UPDATE subscription_trials SET plan_id = $1',
    'SELECT 1 FROM subscriptions FOR UPDATE',
  ])('finds none in %s', (text) => {
    expect(writes.test(text)).toBe(false);
  });
});
