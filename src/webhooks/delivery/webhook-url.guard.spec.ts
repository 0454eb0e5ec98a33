import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error.js';
import { HostResolver, ResolvedAddress, WebhookUrlGuard } from './webhook-url.guard.js';

/** A resolver over a fixed table that records every name it is asked for; it never touches DNS. */
function stubResolver(table: Record<string, ResolvedAddress[]>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const answer = table[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answer;
  };
  return Object.assign(resolver, { calls });
}

const table: Record<string, ResolvedAddress[]> = {
  'hooks.example.test': [{ address: '93.184.215.14', family: 4 }],
  'v6.example.test': [{ address: '2606:4700::1111', family: 6 }],
  'internal.example.test': [{ address: '10.0.0.5', family: 4 }],
  'mixed.example.test': [
    { address: '93.184.215.14', family: 4 },
    { address: '192.168.1.10', family: 4 },
  ],
  'mixed-v6.example.test': [
    { address: '2606:4700::1111', family: 6 },
    { address: 'fd00::1', family: 6 },
  ],
  'mapped.example.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'metadata.example.test': [{ address: '169.254.169.254', family: 4 }],
  'garbage.example.test': [{ address: 'not-an-ip', family: 4 }],
  'empty.example.test': [],
};

function guard(options: { allowHttp?: boolean; allowPrivate?: boolean; nameSettings?: boolean } = {}) {
  const resolver = stubResolver(table);
  return {
    resolver,
    guard: new WebhookUrlGuard({
      allowHttp: options.allowHttp ?? false,
      allowPrivate: options.allowPrivate ?? false,
      nameSettings: options.nameSettings,
      resolver,
    }),
  };
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

function thrown(action: () => unknown): ApiError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected an ApiError');
}

describe('WebhookUrlGuard.parse', () => {
  it('accepts an https URL and returns it normalised', () => {
    const url = guard().guard.parse('https://Hooks.Example.test:8443/in?x=1');
    expect(url.href).toBe('https://hooks.example.test:8443/in?x=1');
  });

  it.each([
    ['not a url', 'malformed'],
    ['/relative/path', 'malformed'],
    ['', 'malformed'],
    ['ftp://hooks.example.test/', 'unsupported_scheme'],
    ['javascript:alert(1)', 'unsupported_scheme'],
    ['file:///etc/passwd', 'unsupported_scheme'],
    ['http://hooks.example.test/', 'http_not_allowed'],
    ['https://user:pass@hooks.example.test/', 'credentials'],
    ['https://user@hooks.example.test/', 'credentials'],
    ['https://:pass@hooks.example.test/', 'credentials'],
    ['https://hooks.example.test:0/', 'malformed'],
    [' https://hooks.example.test/', 'malformed'],
    ['https://hooks.example.test/a\nb', 'malformed'],
    ['https://hooks.example.test/a\tb', 'malformed'],
  ])('refuses %j as webhook_url_invalid (%s)', (input, reason) => {
    const error = thrown(() => guard().guard.parse(input));
    expect(error.getStatus()).toBe(HttpStatus.BAD_REQUEST);
    expect(error.code).toBe('webhook_url_invalid');
    expect(error.details).toEqual({ reason });
    expect(error.message.length).toBeGreaterThan(10);
  });

  it('accepts plain http only when allowHttp is set', () => {
    expect(guard({ allowHttp: true }).guard.parse('http://hooks.example.test/').protocol).toBe('http:');
  });

  it('accepts 2048 characters and refuses 2049', () => {
    const base = 'https://hooks.example.test/';
    const exact = base + 'a'.repeat(2048 - base.length);
    expect(guard().guard.parse(exact).href).toBe(exact);
    const error = thrown(() => guard().guard.parse(exact + 'a'));
    expect(error.code).toBe('webhook_url_invalid');
    expect(error.details).toEqual({ reason: 'too_long' });
  });

  it('refuses a URL that grows beyond the limit when normalised', () => {
    const base = 'https://hooks.example.test/';
    const error = thrown(() => guard().guard.parse(base + 'é'.repeat(1000)));
    expect(error.details).toEqual({ reason: 'too_long' });
  });
});

describe('WebhookUrlGuard.check', () => {
  it('passes a host that resolves to a public address and returns what was checked', async () => {
    const { guard: subject, resolver } = guard();
    const result = await subject.check('https://hooks.example.test/in');
    expect(result.url.hostname).toBe('hooks.example.test');
    expect(result.addresses).toEqual([{ address: '93.184.215.14', family: 4 }]);
    expect(result.public).toBe(true);
    expect(resolver.calls).toEqual(['hooks.example.test']);
    await expect(subject.check('https://v6.example.test/')).resolves.toMatchObject({
      addresses: [{ address: '2606:4700::1111', family: 6 }],
    });
  });

  it.each([
    ['https://internal.example.test/', 'private'],
    ['https://mixed.example.test/', 'private'],
    ['https://mixed-v6.example.test/', 'unique_local'],
    ['https://mapped.example.test/', 'ipv4_mapped:loopback'],
    ['https://metadata.example.test/', 'metadata'],
  ])('refuses %s because a resolved address is %s', async (url, reason) => {
    const error = await rejection(guard().guard.check(url));
    expect(error.getStatus()).toBe(HttpStatus.BAD_REQUEST);
    expect(error.code).toBe('webhook_url_forbidden');
    expect(error.details).toEqual({ reason });
  });

  it.each([
    ['https://127.0.0.1/', 'loopback'],
    ['https://[::1]/', 'loopback'],
    ['https://[::ffff:10.0.0.1]/', 'ipv4_mapped:private'],
    ['https://[0:0:0:0:0:ffff:a00:1]/', 'ipv4_mapped:private'],
    ['https://[fe80::1]/', 'link_local'],
    ['https://[fd00:ec2::254]/', 'metadata'],
    ['https://169.254.169.254/latest/meta-data', 'metadata'],
    ['https://0x7f.1/', 'loopback'],
    ['https://2130706433/', 'loopback'],
    ['https://0177.0.0.1/', 'loopback'],
    ['https://10.1/', 'private'],
    ['https://0/', 'unspecified'],
    ['https://[::]/', 'unspecified'],
  ])('classifies the IP literal in %s without DNS and refuses it (%s)', async (url, reason) => {
    const { guard: subject, resolver } = guard();
    const error = await rejection(subject.check(url));
    expect(error.code).toBe('webhook_url_forbidden');
    expect(error.details).toEqual({ reason });
    expect(resolver.calls).toEqual([]);
  });

  it('passes a public IP literal without DNS', async () => {
    const { guard: subject, resolver } = guard();
    await expect(subject.check('https://[2606:4700::1111]:8443/')).resolves.toMatchObject({
      addresses: [{ address: '2606:4700::1111', family: 6 }],
    });
    await expect(subject.check('https://8.8.8.8/')).resolves.toMatchObject({
      addresses: [{ address: '8.8.8.8', family: 4 }],
    });
    expect(resolver.calls).toEqual([]);
  });

  it('refuses localhost names without asking the resolver', async () => {
    const { guard: subject, resolver } = guard();
    for (const url of ['https://localhost/', 'https://LOCALHOST./', 'https://api.localhost:3000/']) {
      const error = await rejection(subject.check(url));
      expect(error.code).toBe('webhook_url_forbidden');
      expect(error.details).toEqual({ reason: 'loopback' });
    }
    expect(resolver.calls).toEqual([]);
  });

  it('reports an unresolvable host', async () => {
    const unknown = await rejection(guard().guard.check('https://unknown.example.test/'));
    expect(unknown.code).toBe('webhook_url_unresolvable');
    expect(unknown.details).toEqual({ reason: 'ENOTFOUND' });
    const empty = await rejection(guard().guard.check('https://empty.example.test/'));
    expect(empty.code).toBe('webhook_url_unresolvable');
    expect(empty.details).toEqual({ reason: 'no_addresses' });
  });

  it('still validates syntax before resolving', async () => {
    const { guard: subject, resolver } = guard();
    const error = await rejection(subject.check('http://hooks.example.test/'));
    expect(error.code).toBe('webhook_url_invalid');
    expect(resolver.calls).toEqual([]);
  });

  it('lets private targets through when allowPrivate is set, but never a non-address', async () => {
    const { guard: subject } = guard({ allowPrivate: true });
    await expect(subject.check('https://internal.example.test/')).resolves.toMatchObject({
      addresses: [{ address: '10.0.0.5', family: 4 }],
      public: false,
    });
    await expect(subject.check('https://mixed.example.test/')).resolves.toMatchObject({ public: false });
    await expect(subject.check('https://[::1]/')).resolves.toMatchObject({
      addresses: [{ address: '::1', family: 6 }],
      public: false,
    });
    await expect(subject.check('https://hooks.example.test/')).resolves.toMatchObject({ public: true });
    const error = await rejection(subject.check('https://garbage.example.test/'));
    expect(error.code).toBe('webhook_url_forbidden');
    expect(error.details).toEqual({ reason: 'invalid' });
  });
});

describe('WebhookUrlGuard outside production (nameSettings)', () => {
  const development = () => guard({ nameSettings: true }).guard;

  it('names WEBHOOK_ALLOW_HTTP when refusing http', () => {
    const error = thrown(() => development().parse('http://hooks.example.test/'));
    expect(error.code).toBe('webhook_url_invalid');
    expect(error.details).toEqual({ reason: 'http_not_allowed', setting: 'WEBHOOK_ALLOW_HTTP' });
    expect(error.message).toContain('WEBHOOK_ALLOW_HTTP=true');
  });

  it.each([
    ['https://localhost/', 'loopback'],
    ['https://internal.example.test/', 'private'],
    ['https://127.0.0.1/', 'loopback'],
  ])('names WEBHOOK_ALLOW_PRIVATE when refusing %s', async (url, reason) => {
    const error = await rejection(development().check(url));
    expect(error.code).toBe('webhook_url_forbidden');
    expect(error.details).toEqual({ reason, setting: 'WEBHOOK_ALLOW_PRIVATE' });
    expect(error.message).toContain('WEBHOOK_ALLOW_PRIVATE=true');
  });

  it('names both settings a local receiver needs in the first refusal, and only those still off', async () => {
    const both =
      'set WEBHOOK_ALLOW_HTTP=true and WEBHOOK_ALLOW_PRIVATE=true to send webhooks to a local receiver';
    expect(thrown(() => development().parse('http://127.0.0.1:4000/hook')).message).toBe(
      `The webhook URL must use https (development: ${both})`,
    );
    expect((await rejection(development().check('https://localhost:4000/hook'))).message).toBe(
      `The webhook URL points to a loopback, private or otherwise non-public address (development: ${both})`,
    );
    const httpAllowed = guard({ nameSettings: true, allowHttp: true }).guard;
    const refused = await rejection(httpAllowed.check('http://127.0.0.1:4000/hook'));
    expect(refused.message).toContain('(development: set WEBHOOK_ALLOW_PRIVATE=true to send');
    expect(refused.message).not.toContain('WEBHOOK_ALLOW_HTTP');
  });

  it('names no setting where none would help, nor in production', async () => {
    expect(thrown(() => development().parse('ftp://hooks.example.test/')).details).toEqual({
      reason: 'unsupported_scheme',
    });
    expect((await rejection(development().check('https://garbage.example.test/'))).details).toEqual({
      reason: 'invalid',
    });
    expect(thrown(() => guard().guard.parse('http://hooks.example.test/')).details).toEqual({
      reason: 'http_not_allowed',
    });
    expect((await rejection(guard().guard.check('https://localhost/'))).message).not.toContain('WEBHOOK_');
  });
});
