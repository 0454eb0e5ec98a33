import { readFileSync } from 'node:fs';
import * as yaml from 'js-yaml';

type Schema = { $ref?: string; allOf?: Schema[]; properties?: Record<string, Schema>; enum?: unknown[] };
interface Response {
  $ref?: string;
  content?: Record<string, { schema?: Schema }>;
}
interface Document {
  paths: Record<string, Record<string, { responses?: Record<string, Response> }>>;
  components: { responses: Record<string, Response> };
}

/** The `details.code` enum of an error body: the ErrorResponseDto reference narrowed by an allOf branch. */
function codeEnum(schema: Schema | undefined): unknown[] | undefined {
  return schema?.allOf?.map((branch) => branch.properties?.details?.properties?.code?.enum).find(Boolean);
}

const ERROR_OBJECT = '#/components/schemas/ErrorResponseDto';

function isErrorObject(schema: Schema | undefined): boolean {
  return (
    schema?.$ref === ERROR_OBJECT || (schema?.allOf ?? []).some((branch) => branch.$ref === ERROR_OBJECT)
  );
}

/**
 * A generated client unions the codes of every error answer an operation has: one answer whose `details.code` is a
 * plain string widens the union to `string`, and a misspelled code compiles. docs/openapi.yaml is what it reads.
 */
describe('docs/openapi.yaml error codes', () => {
  const document = yaml.load(readFileSync('docs/openapi.yaml', 'utf8')) as Document;

  it('names the details.code values of every error answer of every operation as an enum', () => {
    const untyped: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, answer] of Object.entries(operation.responses ?? {})) {
          if (Number(status) < 400) continue;
          const response = answer.$ref
            ? document.components.responses[answer.$ref.replace('#/components/responses/', '')]
            : answer;
          const schema = response?.content?.['application/json']?.schema;
          // The health probes answer 503 with their own report (HealthDto), not the error object.
          if (!isErrorObject(schema)) continue;
          if (!codeEnum(schema)?.length) untyped.push(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    expect(untyped).toEqual([]);
  });

  it('types the shared 429 as rate_limited with its retryAfterSeconds', () => {
    const schema = document.components.responses.RateLimited!.content!['application/json']!.schema;
    expect(codeEnum(schema)).toEqual(['rate_limited']);
    expect(schema!.allOf![1]!.properties!.details!.properties!.retryAfterSeconds).toEqual({
      type: 'integer',
      minimum: 0,
    });
  });
});
