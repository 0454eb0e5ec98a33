import { ApiKeyEntity } from '../api-keys/api-key.entity.js';
import { SubscriptionEventEntity } from '../subscriptions/subscription-event.entity.js';
import { selectList } from './select-list.js';

describe('selectList', () => {
  it('names each column as its property, renaming only where the column name differs', () => {
    expect(selectList(ApiKeyEntity, ['id', 'ownerAddress', 'label', 'lastUsedAt'])).toBe(
      'id, owner_address AS "ownerAddress", label, last_used_at AS "lastUsedAt"',
    );
  });

  it('qualifies every column with the alias of a join', () => {
    expect(selectList(ApiKeyEntity, ['id', 'revokedAt'], 'k')).toBe('k.id, k.revoked_at AS "revokedAt"');
  });

  it('keeps the order asked for', () => {
    expect(selectList(ApiKeyEntity, ['scopes', 'id'])).toBe('scopes, id');
  });

  it('refuses a property that is no column (a relation)', () => {
    expect(() => selectList(SubscriptionEventEntity, ['id', 'subscription'])).toThrow(
      'SubscriptionEventEntity.subscription is not a column',
    );
  });
});
