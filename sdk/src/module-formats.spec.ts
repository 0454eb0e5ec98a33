import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** What a program gets from the built package (sdk/dist) through its `exports` map, by module format. */
function load(file: string): {
  exports: string[];
  paginate: string;
  family: boolean;
  attemptsWithOneRetryPerCall: number;
  sameModuleAsImport: boolean;
} {
  return JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' }));
}

describe('@tollgate/client from CommonJS and ESM', () => {
  it('loads with require() from a .cjs file: the one ES module build, the same module import() gives', () => {
    const required = load('sdk/type-tests/load.cjs');
    const imported = load('sdk/type-tests/load.mjs');
    expect(required).toEqual({
      exports: expect.arrayContaining(['createTollgateClient', 'signIn']),
      paginate: 'function',
      family: true,
      attemptsWithOneRetryPerCall: 2,
      // No dual-package hazard: a TollgateError thrown under require() is instanceof the import()ed class.
      sameModuleAsImport: true,
    });
    expect(required).toEqual(imported);
  });

  it('exports one ES module build with its types, for import and require() alike', () => {
    const manifest = JSON.parse(readFileSync('sdk/package.json', 'utf8'));
    expect(manifest.exports['.']).toEqual({ types: './dist/esm/index.d.ts', default: './dist/esm/index.js' });
    expect(manifest.type).toBe('module');
    expect(existsSync('sdk/dist/cjs')).toBe(false);
  });
});
