import { AuthTables1795314666113 } from './1795314666113-AuthTables.js';

/** Committed migrations, oldest first. `npm run migration:generate -- src/database/migrations/<Name>` adds one. */
export const MIGRATIONS: Array<new () => unknown> = [AuthTables1795314666113];
