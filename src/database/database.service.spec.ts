import { writesOf } from './database.service.js';

describe('writesOf', () => {
  const writes = writesOf(['api_keys', 'subscriptions']);

  it.each([
    'UPDATE api_keys SET revoked_at = now() WHERE id = gen_random_uuid()',
    `INSERT INTO "subscriptions" (address) VALUES ('0xabc')`,
    'delete from api_keys where id = gen_random_uuid()',
    "WITH s AS (UPDATE subscriptions SET status = 'active' RETURNING *) SELECT * FROM s",
    'UPDATE api_keys AS k SET last_used_at = u.used_at FROM unnest(ARRAY[gen_random_uuid()]) AS u(id)',
  ])('finds a write of a listed table in %s', (text) => {
    expect(writes.test(text)).toBe(true);
  });

  it.each([
    'SELECT * FROM api_keys WHERE id = gen_random_uuid()',
    'INSERT INTO api_key_usage_daily (key_id, day, count) VALUES (gen_random_uuid(), current_date, 1)',
    "UPDATE subscription_trials SET plan_id = 'pro'",
    'SELECT 1 FROM subscriptions FOR UPDATE',
  ])('finds none in %s', (text) => {
    expect(writes.test(text)).toBe(false);
  });
});
