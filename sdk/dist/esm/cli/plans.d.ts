import type { TollgateClient } from '../client.js';
import type { components } from '../schema.js';
type Plan = components['schemas']['PlanDetailsDto'];
export declare const PLANS_USAGE = "  plans list [--archived]                   the plans offered (with --archived, archived ones too)\n  plans create <id> --name <n> --period <seconds> --price <units> [--features <f,\u2026>]\n               [--trial <seconds>] [--description <d>]\n                                            create a plan (operators); price in the token's smallest unit\n  plans archive <id>                        stop offering a plan (operators; its subscribers keep it)";
export declare const PLANS_OPTIONS: {
    readonly archived: {
        readonly type: "boolean";
    };
    readonly name: {
        readonly type: "string";
    };
    readonly period: {
        readonly type: "string";
    };
    readonly price: {
        readonly type: "string";
    };
    readonly features: {
        readonly type: "string";
        readonly multiple: true;
    };
    readonly trial: {
        readonly type: "string";
    };
    readonly description: {
        readonly type: "string";
    };
};
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
/** One line per plan: id, price per period, trial, features, and whether it is still offered. */
export declare function planLine(plan: Plan): string;
export declare function plans(io: PlansIo, sub: string | undefined, positionals: string[], values: PlansValues): Promise<void>;
export {};
