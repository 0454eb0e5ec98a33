/** Committed migrations, oldest first. `npm run migration:generate -- src/database/migrations/<Name>` adds one. */
export const MIGRATIONS: Function[] = [];
