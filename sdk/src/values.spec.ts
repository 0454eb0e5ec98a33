import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';

interface Document {
  components: {
    schemas: Record<string, { properties: Record<string, { enum?: string[]; items?: { enum: string[] } }> }>;
  };
}

/** `npm run sdk`'s list writer (sdk/scripts/write-values.mjs) on variants of the committed document. */
describe('the client lists generated from the OpenAPI document', () => {
  const directory = mkdtempSync(join(tmpdir(), 'tollgate-values-'));
  const document = (): Document => load(readFileSync('docs/openapi.yaml', 'utf8')) as Document;

  function write(current: Document) {
    const file = join(directory, 'openapi.yaml');
    const output = join(directory, 'values.ts');
    writeFileSync(file, dump(current));
    const run = spawnSync(process.execPath, ['sdk/scripts/write-values.mjs', file, output], {
      encoding: 'utf8',
    });
    return {
      status: run.status,
      stderr: run.stderr,
      output: run.status === 0 ? readFileSync(output, 'utf8') : '',
    };
  }

  it('writes the committed sdk/src/values.ts from the committed document', () => {
    const { status, output } = write(document());
    expect(status).toBe(0);
    expect(output).toBe(readFileSync('sdk/src/values.ts', 'utf8'));
  });

  it("keeps the document's order", () => {
    const current = document();
    const type = current.components.schemas.EventDto!.properties.type!;
    type.enum = [...type.enum!].reverse();
    const { status, output } = write(current);
    expect(status).toBe(0);
    expect(output).toContain(`'${type.enum[0]}',\n  '${type.enum[1]}',`);
  });

  it('refuses webhook filters that are not the event types and *', () => {
    const current = document();
    const filters = current.components.schemas.SaveWebhookDto!.properties.events!.items!;
    filters.enum = filters.enum.filter((value) => value !== 'webhook.test');
    const { status, stderr } = write(current);
    expect(status).not.toBe(0);
    expect(stderr).toContain("SaveWebhookDto.events.items is not EventDto.type and '*'");
  });
});
