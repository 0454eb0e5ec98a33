/**
 * Reads the EIP-4361 (Sign-In with Ethereum) message a service hands out for signing, so that `signIn` signs only
 * a sign-in to the service it meant to reach. No dependency: the grammar is small and the client must not pull in
 * a wallet library to check it.
 */
/**
 * The service asked `signIn` to sign something other than a sign-in to the expected origin, address and chain: a
 * relayed challenge of another service (a mistyped or hostile base URL, a man in the middle on plain http) or
 * arbitrary text. Nothing was signed; `code` says what did not match.
 */
export class SignInMessageError extends Error {
    code;
    name = 'SignInMessageError';
    constructor(code, message) {
        super(message);
        this.code = code;
    }
}
const HEADER = /^(?:([A-Za-z][A-Za-z0-9+.-]*):\/\/)?([^\s/?#@]+) wants you to sign in with your Ethereum account:$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DECIMAL = /^[1-9][0-9]*$/;
const NONCE = /^[A-Za-z0-9]{8,}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** Fields after the nonce, each optional, in this order. */
const OPTIONAL_FIELDS = ['Expiration Time: ', 'Not Before: ', 'Request ID: '];
function notSiwe(reason) {
    return new SignInMessageError('not_siwe', `the service asked to sign a message that is not ${reason}`);
}
/**
 * The fields of an EIP-4361 message, read line by line as the grammar orders them; anything else (free text, a
 * line out of place, a carriage return, trailing lines) throws a SignInMessageError `not_siwe`.
 */
export function parseSiweMessage(message) {
    if (message.includes('\r'))
        throw notSiwe('an EIP-4361 sign-in message (carriage return)');
    const lines = message.split('\n');
    let at = 0;
    const next = () => lines[at++];
    const field = (prefix) => {
        const line = next();
        if (line === undefined || !line.startsWith(prefix)) {
            throw notSiwe(`an EIP-4361 sign-in message (expected "${prefix.trim()}" on line ${at})`);
        }
        return line.slice(prefix.length);
    };
    const header = HEADER.exec(next() ?? '');
    if (header === null)
        throw notSiwe('an EIP-4361 sign-in message (no "… wants you to sign in" line)');
    const address = next() ?? '';
    if (!ADDRESS.test(address))
        throw notSiwe('an EIP-4361 sign-in message (no address on line 2)');
    if (next() !== '')
        throw notSiwe('an EIP-4361 sign-in message (line 3 is not empty)');
    // `[ statement LF ] LF`: a statement line and an empty one, or only the empty one; some builders omit both.
    if (!(lines[at] ?? '').startsWith('URI: ')) {
        if (next() !== '' && next() !== '') {
            throw notSiwe('an EIP-4361 sign-in message (a statement of more than one line)');
        }
    }
    const uri = field('URI: ');
    const version = field('Version: ');
    const chainId = field('Chain ID: ');
    const nonce = field('Nonce: ');
    const issuedAt = field('Issued At: ');
    if (!DECIMAL.test(chainId) || !Number.isSafeInteger(Number(chainId))) {
        throw notSiwe('an EIP-4361 sign-in message (Chain ID is no number)');
    }
    if (!NONCE.test(nonce))
        throw notSiwe('an EIP-4361 sign-in message (Nonce is not alphanumeric)');
    const times = [issuedAt];
    for (const prefix of OPTIONAL_FIELDS) {
        if (lines[at]?.startsWith(prefix)) {
            const value = next().slice(prefix.length);
            if (prefix !== 'Request ID: ')
                times.push(value);
        }
    }
    if (times.some((time) => !TIMESTAMP.test(time) || Number.isNaN(Date.parse(time)))) {
        throw notSiwe('an EIP-4361 sign-in message (a time is not RFC 3339)');
    }
    if (lines[at] === 'Resources:') {
        at++;
        while (lines[at]?.startsWith('- '))
            at++;
    }
    if (at !== lines.length)
        throw notSiwe(`an EIP-4361 sign-in message (unexpected text on line ${at + 1})`);
    return {
        ...(header[1] === undefined ? {} : { scheme: header[1] }),
        domain: header[2],
        address,
        uri,
        version,
        chainId: Number(chainId),
    };
}
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Same host and port; the loopback names count as one host (`localhost:3000` is `127.0.0.1:3000`). */
function sameHost(a, b) {
    return (a.port === b.port && (a.hostname === b.hostname || (LOOPBACK.has(a.hostname) && LOOPBACK.has(b.hostname))));
}
function url(text) {
    try {
        return new URL(text);
    }
    catch {
        return undefined;
    }
}
/**
 * Checks that `message` is an EIP-4361 sign-in to `expected.origin` (its domain and the origin of its URI), for
 * `expected.address` on `expected.chainId`; throws a SignInMessageError saying what differs. Values from the
 * message are quoted as JSON, so a hostile one cannot write control characters to a terminal.
 */
export function checkSiweMessage(message, expected) {
    const fields = parseSiweMessage(message);
    const { origin } = expected;
    if (fields.version !== '1') {
        throw new SignInMessageError('unsupported_version', `the sign-in message has Version ${JSON.stringify(fields.version)}; only version 1 is known`);
    }
    const scheme = fields.scheme ?? origin.protocol.slice(0, -1);
    const domain = url(`${scheme}://${fields.domain}`);
    if (scheme !== origin.protocol.slice(0, -1) || domain === undefined || !sameHost(domain, origin)) {
        throw new SignInMessageError('wrong_domain', `the sign-in message is for ${JSON.stringify(fields.domain)}, not ${origin.host}: refusing to sign a ` +
            'sign-in to another site (check the URL; pass the origin option if the service signs in under another)');
    }
    const uri = url(fields.uri);
    if (uri === undefined || uri.protocol !== origin.protocol || !sameHost(uri, origin)) {
        throw new SignInMessageError('wrong_uri', `the sign-in message's URI is ${JSON.stringify(fields.uri)}, not on ${origin.origin}: refusing to sign`);
    }
    if (fields.address.toLowerCase() !== expected.address.toLowerCase()) {
        throw new SignInMessageError('wrong_address', `the sign-in message is for the address ${fields.address}, not ${expected.address}: refusing to sign`);
    }
    if (fields.chainId !== expected.chainId) {
        throw new SignInMessageError('wrong_chain', `the sign-in message is for chain ${fields.chainId}, not ${expected.chainId}: refusing to sign (pass the ` +
            "chainId option with the service's chain)");
    }
    return fields;
}
