export declare const PRIVATE_KEY_OUT_OF_RANGE = "the private key is out of range: it must be above 0 and below the secp256k1 curve order";
/**
 * The private key to sign in with, from `--key-file`, else TOLLGATE_PRIVATE_KEY (environment or `.env`), else a
 * hidden prompt on a terminal. Never from the command line, where shells, `ps` and npm's banner would show it.
 */
export declare function readPrivateKey(keyFile: string | undefined): Promise<`0x${string}`>;
