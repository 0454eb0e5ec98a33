import { jest } from '@jest/globals';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTollgateClient, type TollgateClient } from '../client.js';
import { forwardTarget, listen, STOP_SIGNALS } from './listen.js';
import { UsageError } from './settings.js';

const WEBHOOK_ID = '6f1c2a4e-0d6b-4c1e-9a57-1f0b1c2d3e4f';

describe('tollgate listen', () => {
  it('names both settings when the service refuses a loopback receiver', async () => {
    const registered: unknown[] = [];
    const client = createTollgateClient({
      baseUrl: 'http://127.0.0.1:1',
      fetch: async (request) => {
        registered.push(await request.json());
        const body = {
          error:
            'url must not point to a private address (set WEBHOOK_ALLOW_PRIVATE=true outside production)',
          details: { code: 'webhook_url_forbidden', setting: 'WEBHOOK_ALLOW_PRIVATE' },
        };
        return new Response(JSON.stringify(body), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    const lines: string[] = [];
    const refused = await listen(client, {
      forwardTo: 'http://127.0.0.1:4000/hook',
      events: ['subscription.renewed'],
      port: 0,
      print: (line) => lines.push(line),
      log: (line) => lines.push(line),
    }).catch((error: unknown) => error);

    expect(registered).toEqual([
      {
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/),
        description: 'tollgate listen -> http://127.0.0.1:4000/hook',
        events: ['subscription.renewed'],
      },
    ]);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toMatch(/webhook_url_forbidden/);
    expect((refused as Error).message).toMatch(/WEBHOOK_ALLOW_HTTP=true and WEBHOOK_ALLOW_PRIVATE=true/);
    expect(lines).toEqual([
      expect.stringMatching(/^registering the receiver http:\/\/127\.0\.0\.1:\d+\/ as a webhook…$/),
    ]);
  });

  it('deletes the webhook when stopped while its registration is still under way', async () => {
    const listeners = () => STOP_SIGNALS.map((signal) => process.listenerCount(signal));
    const before = listeners();
    const exit = jest.spyOn(process, 'exit').mockImplementation(() => undefined as never);
    const calls: string[] = [];
    const lines: string[] = [];
    let registrationSent!: () => void;
    const sent = new Promise<void>((resolve) => (registrationSent = resolve));
    let answerRegistration!: () => void;
    const answered = new Promise<void>((resolve) => (answerRegistration = resolve));
    const client = createTollgateClient({
      baseUrl: 'http://127.0.0.1:1',
      maxRetries: 0,
      fetch: async (request) => {
        calls.push(`${request.method} ${new URL(request.url).pathname}`);
        if (request.method === 'DELETE') return new Response(null, { status: 204 });
        registrationSent();
        await answered;
        const webhook = {
          id: WEBHOOK_ID,
          url: 'http://127.0.0.1:9/',
          events: ['subscription.renewed'],
          enabled: true,
          secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}`,
          createdAt: new Date().toISOString(),
        };
        return new Response(JSON.stringify(webhook), {
          status: 201,
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    const listening = listen(client, {
      forwardTo: 'http://127.0.0.1:4000/hook',
      events: undefined,
      port: 0,
      print: () => undefined,
      log: (line) => lines.push(line),
    });
    await sent;
    try {
      // A Ctrl-C before the service has answered the registration; a second one would quit without waiting.
      process.emit('SIGINT');
      expect(exit).not.toHaveBeenCalled();
      process.emit('SIGHUP');
      expect(exit).toHaveBeenCalledWith(130);
      answerRegistration();
      await listening;
    } finally {
      exit.mockRestore();
    }
    expect(calls).toEqual(['POST /webhooks', `DELETE /webhooks/${WEBHOOK_ID}`]);
    // Stopped before it listened: no "listening" banner, no secret, only what happened.
    expect(lines).toEqual([
      expect.stringMatching(/^registering the receiver /),
      'stopping once the webhook is registered, to delete it (Ctrl-C again to quit now)',
      `stopping: deleting webhook ${WEBHOOK_ID}…`,
      `webhook ${WEBHOOK_ID} deleted`,
    ]);
    expect(listeners()).toEqual(before);
  });

  /** A service that registers the webhook at once and deletes it when asked. */
  function registering(secret: string): TollgateClient {
    return createTollgateClient({
      baseUrl: 'http://127.0.0.1:1',
      maxRetries: 0,
      fetch: async (request) => {
        if (request.method === 'DELETE') return new Response(null, { status: 204 });
        const webhook = {
          id: WEBHOOK_ID,
          url: 'http://127.0.0.1:9/',
          events: ['subscription.renewed'],
          enabled: true,
          secret,
          createdAt: new Date().toISOString(),
        };
        return new Response(JSON.stringify(webhook), {
          status: 201,
          headers: { 'content-type': 'application/json' },
        });
      },
    });
  }

  it('shows only the start of the signing secret, and writes it in full to --secret-file (mode 600)', async () => {
    const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    const secretFile = join(mkdtempSync(join(tmpdir(), 'tollgate-listen-')), 'secret');
    const lines: string[] = [];
    const listening = listen(registering(secret), {
      forwardTo: 'http://localhost:4000/hook',
      events: undefined,
      port: 0,
      secretFile,
      print: (line) => lines.push(line),
      log: (line) => lines.push(line),
    });
    await until(() => lines.some((line) => line.startsWith('listening on')));
    process.emit('SIGINT');
    await listening;
    const text = lines.join('\n');
    expect(text).not.toContain(secret.slice('whsec_'.length, 'whsec_'.length + 12));
    expect(text).toContain(
      `webhook signing secret: whsec_${secret.slice(6, 10)}… (hidden), stored in ${secretFile}`,
    );
    expect(readFileSync(secretFile, 'utf8')).toBe(`${secret}\n`);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
  });

  it.each([
    'file:///etc/passwd',
    'ftp://127.0.0.1/',
    'javascript:alert(1)',
    'data:text/plain,x',
    'localhost:4000',
  ])('refuses to forward to %s: http and https only', (url) => {
    expect(() => forwardTarget(url, () => undefined)).toThrow(/--forward-to must be an http or https URL/);
  });

  it('forwards to another host only with a warning saying deliveries leave the machine', () => {
    const warnings: string[] = [];
    for (const url of ['http://localhost:4000/hook', 'http://127.0.0.2:4000/', 'http://[::1]:4000/']) {
      expect(forwardTarget(url, (line) => warnings.push(line)).href).toBe(new URL(url).href);
    }
    expect(warnings).toEqual([]);
    forwardTarget('https://hooks.example.com/tollgate', (line) => warnings.push(line));
    forwardTarget('http://127.attacker.example:4000/', (line) => warnings.push(line));
    expect(warnings).toEqual([
      'warning: hooks.example.com is not this machine: signed deliveries will leave it, to https://hooks.example.com',
      'warning: 127.attacker.example:4000 is not this machine: signed deliveries will leave it, to ' +
        'http://127.attacker.example:4000',
    ]);
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
