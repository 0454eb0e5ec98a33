/**
 * Every entity of the service. Listed explicitly rather than globbed so that the app, the TypeORM CLI and the tests
 * load exactly the same set, compiled or not.
 */
export const ENTITIES: Function[] = [];
