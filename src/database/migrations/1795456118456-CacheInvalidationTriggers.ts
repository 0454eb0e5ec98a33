import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The database publishes cache invalidations itself: a change to a row that a cache serves writes its
 * invalidation row in the changing transaction (see src/cache/invalidation-log.service.ts), so no write path, old or
 * new, can forget to. Topics and keys are the caches' own: 'jti' (logged-out session tokens), 'api_key' (a key's
 * digest in hex), 'subscription' (the lowercase address).
 */
export class CacheInvalidationTriggers1795456118456 implements MigrationInterface {
  name = 'CacheInvalidationTriggers1795456118456';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE FUNCTION "invalidate_cache"(topic text, key text) RETURNS void LANGUAGE sql AS $$
                INSERT INTO "cache_invalidations" ("xid", "topic", "key")
                VALUES (pg_current_xact_id()::text::bigint, topic, key)
            $$
        `);
    await queryRunner.query(`
            CREATE FUNCTION "revoked_tokens_invalidate"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM "invalidate_cache"('jti', NEW."jti"::text);
                RETURN NULL;
            END
            $$
        `);
    await queryRunner.query(`
            CREATE TRIGGER "tr_revoked_tokens_invalidate" AFTER INSERT ON "revoked_tokens"
            FOR EACH ROW EXECUTE FUNCTION "revoked_tokens_invalidate"()
        `);
    // Recording a key's last use (every minute per busy key) changes nothing a cache holds.
    await queryRunner.query(`
            CREATE FUNCTION "api_keys_invalidate"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'UPDATE' AND (OLD."revoked_at", OLD."scopes", OLD."owner_address", OLD."key_digest")
                        IS NOT DISTINCT FROM (NEW."revoked_at", NEW."scopes", NEW."owner_address", NEW."key_digest") THEN
                    RETURN NULL;
                END IF;
                PERFORM "invalidate_cache"('api_key', encode(OLD."key_digest", 'hex'));
                RETURN NULL;
            END
            $$
        `);
    await queryRunner.query(`
            CREATE TRIGGER "tr_api_keys_invalidate" AFTER UPDATE OR DELETE ON "api_keys"
            FOR EACH ROW EXECUTE FUNCTION "api_keys_invalidate"()
        `);
    await queryRunner.query(`
            CREATE FUNCTION "subscriptions_invalidate"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    PERFORM "invalidate_cache"('subscription', OLD."address");
                END IF;
                IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW."address" <> OLD."address") THEN
                    PERFORM "invalidate_cache"('subscription', NEW."address");
                END IF;
                RETURN NULL;
            END
            $$
        `);
    await queryRunner.query(`
            CREATE TRIGGER "tr_subscriptions_invalidate" AFTER INSERT OR UPDATE OR DELETE ON "subscriptions"
            FOR EACH ROW EXECUTE FUNCTION "subscriptions_invalidate"()
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "tr_subscriptions_invalidate" ON "subscriptions"`);
    await queryRunner.query(`DROP FUNCTION "subscriptions_invalidate"()`);
    await queryRunner.query(`DROP TRIGGER "tr_api_keys_invalidate" ON "api_keys"`);
    await queryRunner.query(`DROP FUNCTION "api_keys_invalidate"()`);
    await queryRunner.query(`DROP TRIGGER "tr_revoked_tokens_invalidate" ON "revoked_tokens"`);
    await queryRunner.query(`DROP FUNCTION "revoked_tokens_invalidate"()`);
    await queryRunner.query(`DROP FUNCTION "invalidate_cache"(text, text)`);
  }
}
