import { createTollgateClient } from '../client.js';
import { listen } from './listen.js';
import { UsageError } from './settings.js';

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
});
