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
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  return {
    get: (path: string, options?: RequestOptions) => send('GET', path, options),
    post: (path: string, options?: RequestOptions) => send('POST', path, options),
    send,
  };
}
