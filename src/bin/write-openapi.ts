import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { createOpenApiDocument } from '../app.js';
import { loadAppConfig } from '../config/app-config.js';
import { toYaml } from '../openapi/openapi.js';

/** `npm run openapi`: writes docs/openapi.yaml from the routes and DTOs, without a database or a listening port. */
const config = loadAppConfig({ NODE_ENV: 'test', DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
const document = await createOpenApiDocument(config, pino({ level: 'error' }));
const target = resolve(process.argv[2] ?? 'docs/openapi.yaml');
writeFileSync(target, toYaml(document));
console.warn(`wrote ${target}`);
