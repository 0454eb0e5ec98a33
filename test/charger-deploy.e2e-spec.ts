import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Address, createPublicClient, getAddress, http, zeroAddress, zeroHash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { chargerAbi, type Mandate, mandateHash } from '../src/auto-renew/mandate.js';
import { startTestChain, type TestChain } from './utils/evm.js';

const run = promisify(execFile);

/** Runs a script of scripts/ to its end; resolves to its exit code and output either way. */
async function script(
  name: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join('scripts', name), ...args], {
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('the charging contract: artifact and deployment', () => {
  let chain: TestChain;
  let dir: string;

  beforeAll(async () => {
    chain = await startTestChain();
    dir = mkdtempSync(join(tmpdir(), 'tollgate-deploy-'));
  });

  afterAll(async () => {
    await chain?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('commits the artifact and the typed ABI that the Solidity source compiles to', async () => {
    const { code, stdout, stderr } = await script('contracts-build.mjs', ['--check']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/current/);
  });

  it('deploys the charger from a key file and prints its address, never the key', async () => {
    const key = generatePrivateKey();
    const deployer = privateKeyToAccount(key);
    await chain.fund(deployer.address);
    const keyFile = join(dir, 'deployer.key');
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });

    const { code, stdout, stderr } = await script('contracts-deploy.mjs', [
      '--rpc',
      chain.rpcUrl,
      '--key-file',
      keyFile,
    ]);
    expect({ code, failure: code === 0 ? '' : stderr }).toEqual({ code: 0, failure: '' });
    expect(stdout + stderr).not.toContain(key.slice(2));
    const address = getAddress(stdout.trim()) as Address;

    // It is the charger: it hashes a mandate as the service does, for its own address.
    const mandate: Mandate = {
      payer: deployer.address,
      token: zeroAddress,
      payee: zeroAddress,
      amount: 1n,
      periodSeconds: 60n,
      start: 0n,
      periods: 1n,
      salt: zeroHash,
    };
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    expect(
      await client.readContract({ address, abi: chargerAbi, functionName: 'hashMandate', args: [mandate] }),
    ).toBe(mandateHash(mandate, chain.chainId, address));
  });

  it('refuses a key file that does not hold a key, without echoing it', async () => {
    const keyFile = join(dir, 'wrong.key');
    writeFileSync(keyFile, 'not-a-key-secret-words\n', { mode: 0o600 });
    const { code, stdout, stderr } = await script('contracts-deploy.mjs', [
      '--rpc',
      chain.rpcUrl,
      '--key-file',
      keyFile,
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/key file must hold one private key/);
    expect(stdout + stderr).not.toMatch(/secret-words/);
  });
});
