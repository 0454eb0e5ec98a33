import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';

interface Document {
  info: { version: string };
  paths: Record<string, unknown>;
  components: {
    schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] } | undefined>;
  };
}

/**
 * `npm run openapi:breaking` (sdk/scripts/openapi-breaking.mjs) on variants of the released document: what it
 * must refuse, and what it must let through.
 */
describe('the OpenAPI breaking-change check', () => {
  const directory = mkdtempSync(join(tmpdir(), 'tollgate-openapi-'));
  const released = 'docs/openapi.released.yaml';
  const document = (): Document => load(readFileSync(released, 'utf8')) as Document;
  /** The released version, as a pattern, and the next minor (what an addition takes). */
  const version = document().info.version;
  const versionPattern = version.replaceAll('.', '\\.');
  const [major, minor] = version.split('.').map(Number);
  const nextMinor = `${major}.${minor! + 1}.0`;

  function check(current: Document, changelogHeading = `## 2.0.0 (API ${current.info.version})`) {
    const file = join(directory, 'openapi.yaml');
    const changelog = join(directory, 'CHANGELOG.md');
    writeFileSync(file, dump(current));
    writeFileSync(changelog, `# Changelog\n\n${changelogHeading}\n\n- …\n`);
    const run = spawnSync(process.execPath, ['sdk/scripts/openapi-breaking.mjs', released, file, changelog], {
      encoding: 'utf8',
    });
    return { status: run.status, output: run.stdout + run.stderr };
  }

  it('refuses a removed route and a removed answer field', () => {
    const current = document();
    delete current.paths['/api-keys/revoke'];
    const subscription = current.components.schemas.SubscriptionDto!;
    delete subscription.properties!.currentPeriodEnd;
    subscription.required = subscription.required?.filter((name) => name !== 'currentPeriodEnd');
    const { status, output } = check(current);
    expect(status).toBe(1);
    expect(output).toMatch(
      new RegExp(`breaks what docs/openapi\\.released\\.yaml \\(${versionPattern}\\) promised`),
    );
    expect(output).toMatch(/path\.remove .*\/api-keys\/revoke/);
    expect(output).toMatch(/response\.body\.scope\.add .*\/subscriptions\/status/);
  }, 180_000);

  it('refuses an addition that keeps the released version, and takes it under a new minor', () => {
    const current = document();
    current.paths['/api-keys/summary'] = current.paths['/health'];
    const kept = check(current);
    expect(kept.status).toBe(1);
    expect(kept.output).toMatch(
      new RegExp(`changed since its release ${versionPattern} but kept its info\\.version`),
    );
    expect(kept.output).toMatch(/path\.add .*\/api-keys\/summary/);

    current.info.version = nextMinor;
    expect(check(current, `## 2.0.0 (API ${version})`)).toMatchObject({
      status: 1,
      output: expect.stringContaining(`must name the document's version: "API ${nextMinor}"`),
    });
    const minor = check(current);
    expect(minor.output).toMatch(/has no breaking change against/);
    expect(minor.status).toBe(0);
  }, 180_000);
  it('takes an optional request property as an addition, but not a changed one', () => {
    const current = document();
    current.info.version = nextMinor;
    const renew = current.components.schemas.RenewSubscriptionDto!;
    renew.properties!.note = { type: 'string', maxLength: 32 };
    const added = check(current);
    expect(added.output).toMatch(/non-breaking: +request\.body\.scope\.remove .*\/subscriptions\/renew/);
    expect(added.status).toBe(0);

    renew.properties!.address = { type: 'string', maxLength: 3 };
    const changed = check(current);
    expect(changed.output).toMatch(
      /breaks what .* promised:\n +request\.body\.scope\.remove .*\/subscriptions\/renew/,
    );
    expect(changed.status).toBe(1);
  }, 180_000);
});
