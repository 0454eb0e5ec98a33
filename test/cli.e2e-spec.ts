import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { verifyWebhook } from '../sdk/src/index.js';
import { Receiver, until } from './utils/receiver.js';
import { startTcpProxy } from './utils/tcp-proxy.js';
import { cli, fields } from './utils/cli.js';
import { startTestApp, TEST_ORIGIN, type TestApp } from './utils/test-app.js';

/**
 * `tollgate` (sdk/src/cli, built to sdk/dist) driven as a developer drives it: a child process in a scratch
 * directory, the service URL in TOLLGATE_URL, the session in $XDG_CONFIG_HOME/tollgate/session.json.
 */
describe('the tollgate CLI against the service', () => {
  const privateKey = generatePrivateKey();
  const address = privateKeyToAccount(privateKey).address;
  const runner = cli(() => t.url, 'cli');
  const { home } = runner;
  let t: TestApp;
  let receiver: Receiver;

  const { start } = runner;
  const tollgate = runner.run;

  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' } });
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('refuses a private key on the command line without echoing it', async () => {
    const run = await tollgate(['login', '--key', privateKey]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/never read from the command line/);
    expect(run.stdout + run.stderr).not.toContain(privateKey.slice(2));
  });

  it('refuses an out-of-range private key in one line, without the key', async () => {
    const outOfRange = `0x${'f'.repeat(64)}`;
    const run = await tollgate(['login'], { TOLLGATE_PRIVATE_KEY: outOfRange });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'the private key is out of range: it must be above 0 and below the secp256k1 curve order\n',
    );
    expect(run.stdout).toBe('');
  });

  it('refuses to sign in through a relay of the service: nothing signed, no session stored', async () => {
    const relay = await startTcpProxy('127.0.0.1', Number(new URL(t.url).port));
    const file = join(home, 'relayed', 'session.json');
    try {
      const run = await tollgate(['login', '--token-file', file], {
        TOLLGATE_PRIVATE_KEY: privateKey,
        TOLLGATE_URL: `http://127.0.0.1:${relay.port}`,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(`^signing in to http://127\\.0\\.0\\.1:${relay.port} as ${address} on chain 1\n`),
      );
      expect(run.stderr).toMatch(
        /^refused to sign: the sign-in message is for "localhost:3000", not 127\.0\.0\.1:\d+/m,
      );
    } finally {
      await relay.close();
    }
    expect(existsSync(file)).toBe(false);
  });

  it('signs in with TOLLGATE_PRIVATE_KEY and stores the session, readable by its owner only', async () => {
    const run = await tollgate(['login', '--origin', TEST_ORIGIN.AUTH_URI], {
      TOLLGATE_PRIVATE_KEY: privateKey,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^signed in to ${t.url} as ${address} until \\d{4}-`));
    // Said before the wallet signs: where it signs in, under which origin, as whom.
    expect(run.stderr).toContain(
      `signing in to ${t.url} (as ${TEST_ORIGIN.AUTH_URI}) as ${address} on chain 1\n`,
    );
    const file = join(home, 'tollgate', 'session.json');
    expect(run.stderr).toContain(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const token = await tollgate(['token']);
    expect(token.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const elsewhere = await tollgate(['token', '--url', 'http://127.0.0.1:9']);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(/is for http:\/\/127\.0\.0\.1:\d+, not http:\/\/127\.0\.0\.1:9/);
  });

  it('reads the status, renews, and reads it again', async () => {
    const before = await tollgate(['status']);
    expect(before.code).toBe(0);
    expect(fields(before.stdout)).toMatchObject({ address, status: 'none', active: 'false' });

    const renewed = await tollgate(['renew']);
    expect(renewed.code).toBe(0);
    expect(fields(renewed.stdout)).toMatchObject({ address, status: 'active', active: 'true' });

    const after = await tollgate(['status', address]);
    expect(fields(after.stdout)).toMatchObject({
      status: 'active',
      currentPeriodEnd: fields(renewed.stdout).currentPeriodEnd,
    });

    const events = await tollgate(['events', '--events', 'subscription.renewed']);
    expect(events.code).toBe(0);
    const lines = events.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\S+Z {2}subscription\.renewed {2}[0-9a-f-]{36} {2}\{.*"status":"active"/);
  });

  it('creates, lists and revokes API keys; a created key is a credential through TOLLGATE_API_KEY', async () => {
    const created = await tollgate(['keys', 'create', '--label', 'ci reader', '--scope', 'READ_ONLY']);
    expect(created.code).toBe(0);
    const { id, key } = fields(created.stdout);
    expect(key).toMatch(/^tg_[0-9A-Za-z]{38}$/);

    const withKey = await tollgate(['status'], { TOLLGATE_API_KEY: key! });
    expect(fields(withKey.stdout)).toMatchObject({ address, status: 'active' });

    const listed = await tollgate(['keys', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+\\S+\\s+active\\s+READ_ONLY\\s+ci reader$`, 'm'));

    const revoked = await tollgate(['keys', 'revoke', id!]);
    expect(fields(revoked.stdout)).toMatchObject({ id, revoked: 'true' });
    const refused = await tollgate(['status'], { TOLLGATE_API_KEY: key! });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^refused: 401 api_key_revoked: /);
  });

  it('prints its version, and each command its own help', async () => {
    const version = await tollgate(['--version']);
    expect(version.stdout).toBe(`${JSON.parse(readFileSync('sdk/package.json', 'utf8')).version}\n`);
    const help = await tollgate(['login', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(
      /^usage: tollgate login \[--key-file <path>\] \[--chain-id <n>\] \[--origin <url>\]\n/,
    );
    expect((await tollgate(['help', 'listen'])).stdout).toMatch(/^usage: tollgate listen --forward-to <url>/);
    const refused = await tollgate(['listen', '--forward-to', 'file:///etc/passwd']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^--forward-to must be an http or https URL, not file:/);
  });

  it('adds and lists a webhook, and sends it a test event', async () => {
    const added = await tollgate(['webhooks', 'add', receiver.url, '--events', 'webhook.test']);
    expect(added.code).toBe(0);
    const { id, secret } = fields(added.stdout);
    expect(secret).toMatch(/^whsec_/);

    const listed = await tollgate(['webhooks', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+enabled\\s+webhook.test\\s+${receiver.url}$`, 'm'));

    const tested = await tollgate(['webhooks', 'test', id!]);
    expect(fields(tested.stdout)).toMatchObject({ webhookId: id, success: 'true', statusCode: '200' });
    const [delivered] = await receiver.waitFor(1);
    expect((await verifyWebhook(secret!, delivered!.headers, delivered!.body)).type).toBe('webhook.test');

    const deliveries = await tollgate(['webhooks', 'deliveries', id!]);
    expect(deliveries.stdout).toMatch(/\swebhook\.test\s+\S+\s+succeeded\s+200$/m);
  });

  it('listen forwards a real renewal, signed, to the local endpoint, one line per event, and cleans up', async () => {
    const forwardTo = await Receiver.start();
    const secretFile = join(home, 'listen-secret');
    const listener = start([
      'listen',
      '--forward-to',
      forwardTo.url,
      '--events',
      'subscription.renewed',
      '--secret-file',
      secretFile,
    ]);
    let stdout = '';
    let stderr = '';
    listener.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    listener.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => listener.on('close', done));
    try {
      await until(() => stderr.includes('waiting for deliveries'), 30_000, 'listen to be ready');
      const secret = readFileSync(secretFile, 'utf8').trim();
      // The terminal shows the secret's start only.
      expect(stderr).toContain(
        `webhook signing secret: ${secret.slice(0, 10)}… (hidden), stored in ${secretFile}`,
      );
      expect(stderr).not.toContain(secret);

      expect((await tollgate(['renew'])).code).toBe(0);
      const [forwarded] = await forwardTo.waitFor(1, 60_000);
      const event = await verifyWebhook(secret, forwarded!.headers, forwarded!.body);
      expect(event.type).toBe('subscription.renewed');
      if (event.type === 'subscription.renewed') expect(event.data.address).toBe(address);
      await until(() => stdout.includes(event.id), 10_000, 'the event line');
      expect(stdout.trim()).toMatch(
        new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+\\s+subscription\\.renewed\\s+${event.id}\\s+-> 200$`),
      );
    } finally {
      listener.kill('SIGINT');
      expect(await exited).toBe(0);
      await forwardTo.close();
    }
    expect(stderr).toMatch(/webhook \S+ deleted/);
    const listed = await tollgate(['webhooks', 'list']);
    expect(listed.stdout).not.toMatch(/127\.0\.0\.1:\d+\/\s*$/m);
  });
});
