import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** What a program gets from the built package (sdk/dist) through its `exports` map, by module format. */
function load(file: string): {
  exports: string[];
  paginate: string;
  family: boolean;
  attemptsWithOneRetryPerCall: number;
} {
  return JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' }));
}

describe('@tollgate/client from CommonJS and ESM', () => {
  it('loads with require() from a .cjs file: the CommonJS build, with the same exports and per-call settings as the ESM one', () => {
    const required = load('sdk/type-tests/load.cjs');
    const imported = load('sdk/type-tests/load.mjs');
    expect(required).toEqual({
      exports: expect.arrayContaining(['createTollgateClient']),
      paginate: 'function',
      family: true,
      attemptsWithOneRetryPerCall: 2,
    });
    expect(required).toEqual(imported);
  });

  it('maps require to dist/cjs (a CommonJS package scope) and import to dist/esm, each with its types', () => {
    const manifest = JSON.parse(readFileSync('sdk/package.json', 'utf8'));
    expect(manifest.exports['.']).toEqual({
      import: { types: './dist/esm/index.d.ts', default: './dist/esm/index.js' },
      require: { types: './dist/cjs/index.d.ts', default: './dist/cjs/index.js' },
    });
    expect(JSON.parse(readFileSync('sdk/dist/cjs/package.json', 'utf8'))).toEqual({ type: 'commonjs' });
  });
});
