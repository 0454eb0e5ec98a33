import { ApiKeyEntity } from '../api-keys/api-key.entity.js';
import { AuthChallengeEntity } from '../auth/auth-challenge.entity.js';
import { RevokedTokenEntity } from '../auth/revoked-token.entity.js';
import { EventEntity } from '../events/event.entity.js';

/**
 * Every entity of the service. Listed explicitly rather than globbed so that the app, the TypeORM CLI and the tests
 * load exactly the same set, compiled or not.
 */
export const ENTITIES: Array<new () => unknown> = [
  ApiKeyEntity,
  AuthChallengeEntity,
  RevokedTokenEntity,
  EventEntity,
];
