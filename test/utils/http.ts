/** A response with its JSON body parsed (tests read fields off it freely). */
export interface JsonResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as is. */
  body?: unknown;
  token?: string;
}

/**
 * Every error object must carry the request id of its answer (`details.requestId`, equal to the `x-request-id`
 * header): checked here for every error the suite meets, then removed, so each test compares the rest exactly.
 */
function withoutRequestId(body: unknown, headers: Headers): unknown {
  const details = (body as { details?: Record<string, unknown> } | undefined)?.details;
  if (typeof details !== 'object' || details === null) return body;
  const requestId = headers.get('x-request-id');
  if (!requestId || details.requestId !== requestId) {
    throw new Error(`error object without its request id ${requestId}: ${JSON.stringify(body)}`);
  }
  const { requestId: _omitted, ...rest } = details;
  return { ...(body as object), details: rest };
}

/** Minimal HTTP client over fetch for the end-to-end tests: `http(base).post('/auth/nonce', { body })`. */
export function http(baseUrl: string) {
  const send = async (method: string, path: string, options: RequestOptions = {}): Promise<JsonResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (response.status >= 400) parsed = withoutRequestId(parsed, response.headers);
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  return {
    get: (path: string, options?: RequestOptions) => send('GET', path, options),
    post: (path: string, options?: RequestOptions) => send('POST', path, options),
    send,
  };
}

/**
 * Signs a wallet in on `instances[0]`, points a webhook for `subscription.renewed` at `receiverUrl`, and renews
 * `renewals` times, taking the instances in turn: deliveries then come from whichever instance's worker claims them.
 */
export async function renewalsAcrossInstances(
  instances: ReadonlyArray<{ url: string }>,
  receiverUrl: string,
  renewals: number,
  login: (url: string) => Promise<{ token: string }>,
): Promise<{ token: string }> {
  const session = await login(instances[0]!.url);
  const hook = await http(instances[0]!.url).post('/webhooks', {
    token: session.token,
    body: { url: receiverUrl, events: ['subscription.renewed'] },
  });
  expect(hook.status).toBe(200);
  for (let i = 0; i < renewals; i++) {
    const target = instances[i % instances.length]!;
    expect(
      (await http(target.url).post('/subscriptions/renew', { token: session.token, body: {} })).status,
    ).toBe(200);
  }
  return session;
}
