/**
 * The private key to sign in with, from `--key-file`, else TOLLGATE_PRIVATE_KEY (environment or `.env`), else a
 * hidden prompt on a terminal. Never from the command line, where shells, `ps` and npm's banner would show it.
 */
export declare function readPrivateKey(keyFile: string | undefined): Promise<`0x${string}`>;
