// `tollgate entitlements <address> [feature]`: what a wallet may use now.
import type { TollgateClient } from '../client.js';
import { entitlement, entitlements as entitlementList } from '../entitlements.js';
import { UsageError } from './settings.js';

export const ENTITLEMENTS_USAGE = `  entitlements <address> [feature]   whether the wallet may use the feature now, or every feature it may
                                     use (another wallet's: operators)`;

/** One line for a feature; without one, the plan's line and a line per feature in force. */
export async function entitlements(
  client: TollgateClient,
  positionals: string[],
  print: (line: string) => void,
): Promise<void> {
  const [, address, feature] = positionals;
  if (address === undefined) throw new UsageError(`entitlements needs <address>\n\n${ENTITLEMENTS_USAGE}`);
  if (feature !== undefined) {
    const answer = await entitlement(client, address, feature);
    const entitled = answer.entitled ? 'entitled' : 'not entitled';
    return print(`${answer.feature}  ${entitled}  until ${answer.until ?? '-'}  plan ${answer.plan.id}`);
  }
  const answer = await entitlementList(client, address);
  print(`${answer.address}  plan ${answer.plan.id} (${answer.plan.name})  until ${answer.until ?? '-'}`);
  for (const name of answer.features) print(`  ${name}`);
}
