/**
 * Reads the EIP-4361 (Sign-In with Ethereum) message a service hands out for signing, so that `signIn` signs only
 * a sign-in to the service it meant to reach. No dependency: the grammar is small and the client must not pull in
 * a wallet library to check it.
 */
/** Why `signIn` refused to sign the message the service returned; nothing was signed. */
export type SignInMessageCode = 'not_siwe' | 'unsupported_version' | 'wrong_domain' | 'wrong_uri' | 'wrong_address' | 'wrong_chain';
/**
 * The service asked `signIn` to sign something other than a sign-in to the expected origin, address and chain: a
 * relayed challenge of another service (a mistyped or hostile base URL, a man in the middle on plain http) or
 * arbitrary text. Nothing was signed; `code` says what did not match.
 */
export declare class SignInMessageError extends Error {
    readonly code: SignInMessageCode;
    readonly name = "SignInMessageError";
    constructor(code: SignInMessageCode, message: string);
}
/** The fields of an EIP-4361 message that `signIn` checks. */
export interface SiweFields {
    /** The scheme before the domain, when the message names one (`https://app.example.com wants you …`). */
    scheme?: string;
    domain: string;
    address: string;
    uri: string;
    version: string;
    chainId: number;
}
/** What the message must name: the origin (domain, URI), the signing address and the chain. */
export interface SiweExpectation {
    origin: URL;
    address: string;
    chainId: number;
}
/**
 * The fields of an EIP-4361 message, read line by line as the grammar orders them; anything else (free text, a
 * line out of place, a carriage return, trailing lines) throws a SignInMessageError `not_siwe`.
 */
export declare function parseSiweMessage(message: string): SiweFields;
/**
 * Checks that `message` is an EIP-4361 sign-in to `expected.origin` (its domain and the origin of its URI), for
 * `expected.address` on `expected.chainId`; throws a SignInMessageError saying what differs. Values from the
 * message are quoted as JSON, so a hostile one cannot write control characters to a terminal.
 */
export declare function checkSiweMessage(message: string, expected: SiweExpectation): SiweFields;
