// Automatic renewal at scale: N mandates due at the same moment, charged by the service's keeper on the in-process
// EVM (bench/chain.mjs, a process of its own). Used by run.mjs (BENCH_CASES=autorenew).
//
// Each round: N fresh payer wallets get tokens and the charging contract's allowance on the chain, an active
// subscription each whose period ends at the same second T (rows written into PostgreSQL, as the scale case seeds its
// rows), and a signed mandate starting at T, registered over HTTP by an operator (POST /subscriptions/auto-renew with
// `address`). The service runs with its default settings (AUTO_RENEW_LEAD_SECONDS 300, PAYMENT_CONFIRMATIONS 1, the
// renewal sweep every 5 s), so every mandate is due at T − 300 s on the wall clock; T is chosen far enough ahead that
// the registrations are all in before then. Measured from that moment: the time until the last period is credited
// (its payment row's commit), and the CPU the service (the keeper) and the chain process used meanwhile, per charge.
// Then reconciled: the token's Transfer logs to the payee since the round began against the payment rows (one
// transfer per payer, each the payment its period was credited with, none missing, none twice) and the charging
// contract's Charged logs.
//
// The keeper works on AUTO_RENEW_CONCURRENCY charges at a time; a subscription whose charge has not come by its period
// end is held in force and charged after it (`creditedAfterEnd`), never left to expire (`expiredUncharged` counts any
// that did).
//
// Knobs: BENCH_MANDATES (1000), BENCH_AUTORENEW_ROUNDS (2), BENCH_AUTORENEW_LEAD_SECONDS (300, the service's default),
// BENCH_AUTORENEW_MARGIN_SECONDS (the time allowed for the
// registrations before the due moment; by default 30 s + 0.5 s a mandate), BENCH_AUTORENEW_TIMEOUT_SECONDS (1200).
import { fork } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { createPublicClient, erc20Abi, getAddress, http, keccak256, parseAbiItem, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runMigrations } from '../dist/src/database/migrate.js';
import { mandateTypedData } from '../dist/src/auto-renew/mandate.js';
import { spread } from './delivery.mjs';
import { cpuMs } from './service.mjs';

const MANDATES = Number(process.env.BENCH_MANDATES ?? 1000);
const ROUNDS = Number(process.env.BENCH_AUTORENEW_ROUNDS ?? 2);
const MARGIN_SECONDS = Number(process.env.BENCH_AUTORENEW_MARGIN_SECONDS ?? Math.ceil(30 + 0.5 * MANDATES));
const TIMEOUT_SECONDS = Number(process.env.BENCH_AUTORENEW_TIMEOUT_SECONDS ?? 1200);
/** When a charge is due: the service's default (AUTO_RENEW_LEAD_SECONDS) unless BENCH_AUTORENEW_LEAD_SECONDS says. */
const LEAD_SECONDS = Number(process.env.BENCH_AUTORENEW_LEAD_SECONDS ?? 300);
/** The plan's period: the service's default. */
const PERIOD_SECONDS = 2_592_000;
/** 5 tokens of 6 decimals a period. */
const PRICE = 5_000_000n;
/** Registrations in flight at once. */
const REGISTER_CONCURRENCY = 4;

/** bench/chain.mjs in its own process: `{ rpcUrl, chainId, token, charger, pid, ask(message), stop() }`. */
async function startChain(root) {
  const child = fork(join(root, 'bench/chain.mjs'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the chain process exited with ${code}`)));
  });
  let next = 0;
  const ask = (message) =>
    new Promise((resolve, reject) => {
      const id = next++;
      const onAnswer = (answer) => {
        if (answer.id !== id) return;
        child.off('message', onAnswer);
        if (answer.error) reject(new Error(answer.error));
        else resolve(answer.result);
      };
      child.on('message', onAnswer);
      child.send({ ...message, id });
    });
  return {
    ...ready,
    pid: child.pid,
    ask,
    stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill())),
  };
}

/** Runs `work` over `items` with `concurrency` in flight. */
async function inParallel(items, concurrency, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One round: set up MANDATES payers, wait for the due moment, measure the charges and reconcile them. */
async function round({ chain, client, chainClient, service, operatorToken, payee, log }) {
  const payers = Array.from({ length: MANDATES }, () => privateKeyToAccount(generatePrivateKey()));
  const addresses = payers.map((payer) => payer.address.toLowerCase());
  const setupStarted = performance.now();
  await chain.ask({
    payers: payers.map((payer) => payer.address),
    amount: String(2n * PRICE),
    allowance: String(PRICE),
  });
  const fromBlock = BigInt(await chain.ask({ blockNumber: true })) + 1n;

  // Every period ends at T; every mandate is due at T − LEAD_SECONDS, once the registrations are in.
  const endSeconds = Math.ceil(Date.now() / 1000) + LEAD_SECONDS + MARGIN_SECONDS;
  const end = new Date(endSeconds * 1000);
  const dueAt = (endSeconds - LEAD_SECONDS) * 1000;
  await client.query(
    `INSERT INTO subscriptions (address, current_period_start, current_period_end, cancel_at_period_end, created_at, updated_at)
     SELECT a, $2::timestamptz - make_interval(secs => $3), $2, false, now(), now() FROM unnest($1::text[]) AS a`,
    [addresses, end, PERIOD_SECONDS],
  );
  let registered = 0;
  let retried = 0;
  await inParallel(payers, REGISTER_CONCURRENCY, async (payer) => {
    const mandate = {
      payer: payer.address,
      token: getAddress(chain.token),
      payee,
      amount: PRICE,
      periodSeconds: BigInt(PERIOD_SECONDS),
      start: BigInt(endSeconds),
      periods: 12n,
      salt: keccak256(toHex(`bench-${payer.address}`)),
    };
    const signature = await payer.signTypedData(mandateTypedData(mandate, chain.chainId, chain.charger));
    const register = () =>
      fetch(`${service.url}/subscriptions/auto-renew`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${operatorToken}` },
        body: JSON.stringify({
          address: payer.address,
          mandate: Object.fromEntries(
            Object.entries(mandate).map(([key, value]) => [
              key,
              typeof value === 'bigint' ? value.toString() : value,
            ]),
          ),
          signature,
        }),
      });
    let response = await register();
    // 503 `auto_renew_chain_unavailable` (a chain read past CHAIN_RPC_TIMEOUT_MS on a busy machine) says to retry.
    for (let attempt = 0; response.status === 503 && attempt < 5; attempt++) {
      retried++;
      await sleep(1000);
      response = await register();
    }
    const body = await response.json();
    if (response.status !== 200 || body.autoRenew?.allowanceShortfall !== undefined) {
      throw new Error(`registering a mandate: ${response.status} ${JSON.stringify(body)}`);
    }
    registered++;
  });
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  const slack = (dueAt - Date.now()) / 1000;
  if (slack < 1) {
    throw new Error(
      `the ${registered} registrations ended ${-slack.toFixed(1)} s after the due moment: raise BENCH_AUTORENEW_MARGIN_SECONDS`,
    );
  }
  log(
    `${MANDATES} mandates registered in ${setupSeconds.toFixed(0)} s (${retried} retried after a 503); all due in ${slack.toFixed(0)} s`,
  );
  await sleep(dueAt - Date.now());

  const cpuBefore = { service: cpuMs(service.child.pid), chain: cpuMs(chain.pid) };
  const deadline = Date.now() + TIMEOUT_SECONDS * 1000;
  let credited = 0;
  let ended = 0;
  let lastReport = Date.now();
  // Until every mandate is credited or ended (a subscription whose period ended before its charge expires, and its
  // mandate with it).
  while (credited + ended < MANDATES && Date.now() < deadline) {
    await sleep(250);
    const { rows } = await client.query(
      `SELECT (SELECT count(*)::int FROM payments WHERE address = ANY($1::text[])) AS credited,
              (SELECT count(*)::int FROM auto_renew_mandates WHERE address = ANY($1::text[]) AND status = 'ended') AS ended`,
      [addresses],
    );
    ({ credited, ended } = rows[0]);
    if (Date.now() - lastReport > 15_000) {
      log(`${credited} of ${MANDATES} credited after ${((Date.now() - dueAt) / 1000).toFixed(0)} s`);
      lastReport = Date.now();
    }
  }
  const cpu = {
    service: cpuMs(service.child.pid) - cpuBefore.service,
    chain: cpuMs(chain.pid) - cpuBefore.chain,
  };

  log(
    `${credited} credited and ${ended} ended after ${((Date.now() - dueAt) / 1000).toFixed(0)} s; CPU ms: service ${cpu.service}, chain ${cpu.chain}; reconciling`,
  );
  // Reconciliation: the chain's transfers to the payee since this round's set-up against the payment rows.
  // Every log, filtered here: tevm refuses a numbered `fromBlock` ("Block with hash 0x08 does not exist") and fails on a
  // topic filter with a null position.
  const sinceSetup = (logs) => logs.filter((entry) => entry.blockNumber >= fromBlock);
  const transfers = sinceSetup(
    await chainClient.getContractEvents({
      address: chain.token,
      abi: erc20Abi,
      eventName: 'Transfer',
      fromBlock: 'earliest',
      toBlock: 'latest',
    }),
  ).filter((log) => log.args.to === payee);
  const charged = sinceSetup(
    await chainClient.getLogs({
      address: chain.charger,
      event: parseAbiItem(
        'event Charged(bytes32 indexed mandateHash, uint256 indexed periodIndex, address indexed payer, address payee, uint256 amount)',
      ),
      fromBlock: 'earliest',
      toBlock: 'latest',
    }),
  );
  const { rows: payments } = await client.query(
    `SELECT address, tx_hash, log_index, amount_minor::text AS amount, created_at FROM payments WHERE address = ANY($1::text[])`,
    [addresses],
  );
  const { rows: mandates } = await client.query(
    `SELECT count(*) FILTER (WHERE charged_through = 0)::int AS charged, count(*) FILTER (WHERE failure_reason IS NOT NULL)::int AS failed,
            count(*) FILTER (WHERE ended_reason = 'subscription_ended')::int AS expired
     FROM auto_renew_mandates WHERE address = ANY($1::text[])`,
    [addresses],
  );
  const key = (txHash, logIndex) => `${txHash.toLowerCase()}:${logIndex}`;
  const onChain = new Map(transfers.map((log) => [key(log.transactionHash, log.logIndex), log]));
  const paid = new Map(payments.map((row) => [key(row.tx_hash, row.log_index), row]));
  const payersOnChain = transfers.map((log) => log.args.from.toLowerCase());
  const payersPaid = payments.map((row) => row.address);
  const chargeTxs = new Set(charged.map((log) => log.transactionHash.toLowerCase()));
  const reconciliation = {
    transfers: transfers.length,
    chargedLogs: charged.length,
    payments: payments.length,
    // A payer charged twice on chain, or credited twice.
    duplicates:
      payersOnChain.length - new Set(payersOnChain).size + (payersPaid.length - new Set(payersPaid).size),
    // A payer neither charged nor credited; a transfer without a credit; a credit without its transfer.
    missing: addresses.filter((address) => !payersPaid.includes(address)).length,
    transfersWithoutCredit: [...onChain.keys()].filter((id) => !paid.has(id)).length,
    creditsWithoutTransfer: [...paid.keys()].filter((id) => !onChain.has(id)).length,
    transfersNotByCharger: transfers.filter((log) => !chargeTxs.has(log.transactionHash.toLowerCase()))
      .length,
    wrongAmount: payments.filter((row) => row.amount !== PRICE.toString()).length,
    mandatesCharged: mandates[0].charged,
    mandatesFailed: mandates[0].failed,
    // Due, never charged: the subscription's period ended first, so it expired and its mandate ended.
    expiredUncharged: mandates[0].expired,
  };
  const times = payments.map((row) => row.created_at.getTime() - dueAt).sort((a, b) => a - b);
  const lastSeconds = times.length === MANDATES ? times.at(-1) / 1000 : null;
  const afterEnd = times.filter((ms) => ms > LEAD_SECONDS * 1000).length;
  return {
    mandates: MANDATES,
    leadSeconds: LEAD_SECONDS,
    setupSeconds: +setupSeconds.toFixed(1),
    registrationsRetried: retried,
    firstCreditSeconds: times.length > 0 ? +(times[0] / 1000).toFixed(1) : null,
    lastCreditSeconds: lastSeconds === null ? null : +lastSeconds.toFixed(1),
    chargesPerSecond: lastSeconds === null ? null : +(MANDATES / lastSeconds).toFixed(2),
    // Held in force over the period end while their turn came (the lead was too short for all of them).
    creditedAfterEnd: afterEnd,
    serviceCpuMsPerCharge: +(cpu.service / Math.max(1, payments.length)).toFixed(1),
    chainCpuMsPerCharge: +(cpu.chain / Math.max(1, payments.length)).toFixed(1),
    ...reconciliation,
  };
}

/**
 * Runs the case on its own database (created here) and its own service instance, configured for `erc20` with the
 * charging contract and a keeper key; `log` prints a phase line. Returns the rounds and their spread.
 */
export async function benchAutoRenew({ root, adminUrl, startService, login, log }) {
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = '/tollgate_autorenew';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE tollgate_autorenew');
  await admin.end();
  await runMigrations(databaseUrl.href);

  const chain = await startChain(root);
  const operator = privateKeyToAccount(generatePrivateKey());
  const keeperKey = generatePrivateKey();
  const payee = getAddress(privateKeyToAccount(generatePrivateKey()).address);
  let service;
  const client = new pg.Client({ connectionString: databaseUrl.href });
  try {
    await chain.ask({ fund: privateKeyToAccount(keeperKey).address });
    service = await startService(databaseUrl.href, {
      OPERATOR_ADDRESSES: operator.address,
      PAYMENT_GATEWAY: 'erc20',
      PAYMENT_TOKEN_ADDRESS: chain.token,
      PAYMENT_RECEIVER_ADDRESS: payee,
      PAYMENT_PRICE_PER_PERIOD: PRICE.toString(),
      PAYMENT_CHAIN_ID: String(chain.chainId),
      CHAIN_RPC_URL: chain.rpcUrl,
      AUTO_RENEW_CHARGER_ADDRESS: chain.charger,
      KEEPER_PRIVATE_KEY: keeperKey,
      ...(LEAD_SECONDS === 300 ? {} : { AUTO_RENEW_LEAD_SECONDS: String(LEAD_SECONDS) }),
    });
    await client.connect();
    const operatorToken = (await login(service.url, operator)).token;
    // Reading every log of a thousand charges takes tevm well past viem's default 10 s.
    const chainClient = createPublicClient({
      transport: http(chain.rpcUrl, { timeout: 600_000 }),
      cacheTime: 0,
    });
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) {
      log(`autorenew: round ${i + 1} of ${ROUNDS}, setting up ${MANDATES} payers and mandates`);
      const result = await round({ chain, client, chainClient, service, operatorToken, payee, log });
      log(`autorenew: round ${i + 1}: ${JSON.stringify(result)}`);
      rounds.push(result);
    }
    const finished = rounds.every((result) => result.lastCreditSeconds !== null);
    return {
      name: `${MANDATES} mandates due at once, charged by the keeper on the in-process EVM`,
      rounds,
      lastCreditSeconds: finished ? Math.max(...rounds.map((result) => result.lastCreditSeconds)) : null,
      lastCreditSpread: finished ? spread(rounds.map((result) => result.lastCreditSeconds)).spread : null,
      expiredUncharged: rounds.reduce((sum, result) => sum + result.expiredUncharged, 0),
      serviceCpuMsPerCharge: Math.max(...rounds.map((result) => result.serviceCpuMsPerCharge)),
      chainCpuMsPerCharge: Math.max(...rounds.map((result) => result.chainCpuMsPerCharge)),
      // Every round's reconciliation must be clean: any count here is a defect, not noise.
      defects: rounds.reduce(
        (sum, result) =>
          sum +
          result.duplicates +
          result.missing +
          result.transfersWithoutCredit +
          result.creditsWithoutTransfer +
          result.transfersNotByCharger +
          result.wrongAmount +
          // Every mandate charged: one that expired uncharged is a defect too.
          (result.mandates - result.mandatesCharged),
        0,
      ),
    };
  } finally {
    await client.end().catch(() => undefined);
    await service?.stop();
    await chain.stop();
  }
}
