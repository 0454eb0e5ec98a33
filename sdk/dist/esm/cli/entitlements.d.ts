import type { TollgateClient } from '../client.js';
export declare const ENTITLEMENTS_USAGE = "  entitlements <address> [feature]   whether the wallet may use the feature now, or every feature it may\n                                     use (another wallet's: operators)";
/** One line for a feature; without one, the plan's line and a line per feature in force. */
export declare function entitlements(client: TollgateClient, positionals: string[], print: (line: string) => void): Promise<void>;
