import { jest } from '@jest/globals';
import { createTollgateClient } from '../client.js';
import { listen, STOP_SIGNALS } from './listen.js';
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
    expect(lines).toEqual([]);
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
      'stopping once the webhook is registered, to delete it (Ctrl-C again to quit now)',
      `webhook ${WEBHOOK_ID} deleted`,
    ]);
    expect(listeners()).toEqual(before);
  });
});
