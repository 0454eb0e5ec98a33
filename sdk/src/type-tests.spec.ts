import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

/**
 * sdk/type-tests compiles, under the strictest settings, what an integrator writes against the built package
 * (sdk/dist, kept current by `npm run sdk`): typed calls, pagination, the api-guide's example, a require() from
 * CommonJS. Its `@ts-expect-error` lines (a misspelled error code, a wrong path, a wrong body, a misspelt per-call
 * `timeout`, …) make tsc fail the day such a mistake compiles.
 */
describe('@tollgate/client types', () => {
  it('compiles the integrator fixture, whose mistakes must stay compile errors', () => {
    const tsc = createRequire(`${process.cwd()}/package.json`).resolve('typescript/bin/tsc');
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', 'sdk/type-tests/tsconfig.json'], { encoding: 'utf8' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output).toBe('');
  });
});
