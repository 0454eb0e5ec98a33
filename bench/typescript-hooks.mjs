// Module hooks that let a bench process import the test suite's TypeScript helpers (test/utils/*.ts) as they are,
// rather than a copy: each .ts module is stripped of its types by the TypeScript compiler as it loads. Registered
// with `module.register` (see bench/chain.mjs); Node 20 has no type stripping of its own.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const fileName = fileURLToPath(url);
  const { outputText } = ts.transpileModule(await readFile(fileName, 'utf8'), {
    fileName,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
