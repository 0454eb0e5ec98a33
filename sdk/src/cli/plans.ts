// `tollgate plans …`: the plans a wallet may subscribe to, and their management by operators.
import type { TollgateClient } from '../client.js';
import { unwrap } from '../errors.js';
import type { components } from '../schema.js';
import { UsageError } from './settings.js';

type Plan = components['schemas']['PlanDetailsDto'];

export const PLANS_USAGE = `  plans list [--archived]                   the plans offered (with --archived, archived ones too)
  plans create <id> --name <n> --period <seconds> --price <units> [--features <f,…>]
               [--trial <seconds>] [--description <d>]
                                            create a plan (operators); price in the token's smallest unit
  plans archive <id>                        stop offering a plan (operators; its subscribers keep it)`;

export const PLANS_OPTIONS = {
  archived: { type: 'boolean' },
  name: { type: 'string' },
  period: { type: 'string' },
  price: { type: 'string' },
  features: { type: 'string', multiple: true },
  trial: { type: 'string' },
  description: { type: 'string' },
} as const;

export interface PlansValues {
  archived?: boolean;
  name?: string;
  period?: string;
  price?: string;
  features?: string[];
  trial?: string;
  description?: string;
}

export interface PlansIo {
  anonymous: () => TollgateClient;
  authed: () => TollgateClient;
  print: (line: string) => void;
}

/** A whole number of seconds from the command line; anything else is a usage error, not a request. */
function seconds(flag: string, value: string): number {
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`--${flag} must be a whole number of seconds`);
  return Number(value);
}

/** One line per plan: id, price per period, trial, features, and whether it is still offered. */
export function planLine(plan: Plan): string {
  const trial = plan.trialSeconds === null ? 'no trial' : `trial ${plan.trialSeconds}s`;
  const state = plan.offered ? 'offered' : 'archived';
  const features = plan.features.length > 0 ? plan.features.join(',') : '-';
  return `${plan.id}  ${plan.pricePerPeriod}/${plan.periodSeconds}s  ${trial}  ${features}  ${state}  ${plan.name}`;
}

export async function plans(
  io: PlansIo,
  sub: string | undefined,
  positionals: string[],
  values: PlansValues,
): Promise<void> {
  switch (sub) {
    case 'list': {
      const query = values.archived ? { archived: true } : {};
      for (const plan of await unwrap(io.anonymous().GET('/plans', { params: { query } }))) {
        io.print(planLine(plan));
      }
      return;
    }
    case 'create': {
      const id = positionals[2];
      const { name, period, price } = values;
      if (id === undefined || name === undefined || period === undefined || price === undefined) {
        throw new UsageError(`plans create needs <id>, --name, --period and --price\n\n${PLANS_USAGE}`);
      }
      const features = values.features?.flatMap((value) => value.split(',')).map((value) => value.trim());
      const body = {
        id,
        name,
        periodSeconds: seconds('period', period),
        pricePerPeriod: price,
        ...(features === undefined ? {} : { features: features.filter(Boolean) }),
        ...(values.trial === undefined ? {} : { trialSeconds: seconds('trial', values.trial) }),
        ...(values.description === undefined ? {} : { description: values.description }),
      };
      return io.print(planLine(await unwrap(io.authed().POST('/plans', { body }))));
    }
    case 'archive': {
      const id = positionals[2];
      if (id === undefined) throw new UsageError(`plans archive needs <id>\n\n${PLANS_USAGE}`);
      const archived = await unwrap(io.authed().POST('/plans/{id}/archive', { params: { path: { id } } }));
      return io.print(planLine(archived));
    }
    default:
      throw new UsageError(`plans list|create|archive\n\n${PLANS_USAGE}`);
  }
}
