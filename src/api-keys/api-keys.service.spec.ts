import type { Principal } from '../auth/principal.js';
import type { SessionKeyRevocation } from '../auth/session-key-revocation.js';
import type { AppConfig } from '../config/app-config.js';
import type { Database } from '../database/database.service.js';
import type { EventOutbox } from '../events/event-outbox.service.js';
import type { ApiKeyUsageTracker } from './api-key-usage.tracker.js';
import type { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';

const principal = (scopes: Principal['scopes']): Principal => ({
  address: '0x52908400098527886E0F7030069857D2E4169EE7',
  scopes,
  via: 'api_key',
  operator: false,
  keyId: 'k',
});

describe('ApiKeysService scope rule', () => {
  // The check runs before any database work, so the collaborators are never reached.
  const unreachable = {} as AppConfig &
    Database &
    ApiKeysRepository &
    EventOutbox &
    ApiKeyUsageTracker &
    SessionKeyRevocation;
  const service = new ApiKeysService(
    unreachable,
    unreachable,
    unreachable,
    unreachable,
    unreachable,
    unreachable,
  );

  it.each([
    [['SUBSCRIPTIONS_MANAGE'], ['FULL']],
    [['READ_ONLY'], ['SUBSCRIPTIONS_MANAGE']],
    [['READ_ONLY'], ['READ_ONLY', 'FULL']],
  ] as const)('a caller holding %p cannot grant %p', async (held, requested) => {
    await expect(service.create(principal(held), 'x', requested, undefined)).rejects.toMatchObject({
      code: 'scope_not_held',
      status: 403,
    });
  });
});
