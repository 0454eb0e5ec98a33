// What the benches ask of a running service before they measure: sign a wallet in, make a key, post JSON; and the
// CPU a process has used, to put beside the figures.
import { readFileSync } from 'node:fs';

/** POSTs `body` as JSON, with the session token when given: the answer's status, parsed body and session cookie. */
export async function postJson(url, path, body, token) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: await response.json(),
    cookie: response.headers.get('set-cookie')?.split(';')[0],
  };
}

/** Signs `account` in (nonce, signature, verify): its session token and the session cookie. */
export async function signIn(url, account) {
  const { body: nonce } = await postJson(url, '/auth/nonce', { address: account.address });
  const signature = await account.signMessage({ message: nonce.message });
  const { status, body, cookie } = await postJson(url, '/auth/verify', {
    address: account.address,
    signature,
    message: nonce.message,
  });
  if (status >= 300) throw new Error(`sign-in refused: ${status} ${JSON.stringify(body)}`);
  return { token: body.token, cookie };
}

/** A new API key of the signed-in wallet with `scopes`. */
export async function createKey(url, token, scopes) {
  const { status, body } = await postJson(url, '/api-keys', { label: 'bench', scopes }, token);
  if (status >= 300) throw new Error(`key refused: ${status} ${JSON.stringify(body)}`);
  return body.key;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux): fields 14 and 15, in clock ticks. */
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
