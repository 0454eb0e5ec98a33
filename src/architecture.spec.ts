import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = dirname(fileURLToPath(import.meta.url));

/** One import of production code that crosses from one top-level folder of src/ to another. */
interface CrossImport {
  from: string;
  to: string;
  /** file → imported file, relative to src/. */
  edge: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The top-level folder of a path under src/, or undefined for the composition roots in src/ itself. */
function folderOf(path: string): string | undefined {
  const parts = relative(SRC, path).split(/[\\/]/);
  return parts.length > 1 ? parts[0] : undefined;
}

/** Every relative import, export-from and dynamic import of src/ (TypeScript's own scanner, type-only included). */
function crossImports(): CrossImport[] {
  return sourceFiles(SRC).flatMap((file) => {
    const from = folderOf(file);
    if (from === undefined) return [];
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    return importedFiles
      .filter(({ fileName }) => fileName.startsWith('.'))
      .flatMap(({ fileName }) => {
        const target = resolve(dirname(file), fileName);
        const to = folderOf(target);
        if (to === undefined || to === from) return [];
        return [{ from, to, edge: `${relative(SRC, file)} → ${relative(SRC, target)}` }];
      });
  });
}

/** The groups of folders that depend on each other (strongly connected components of more than one), sorted. */
function dependencyCycles(edges: ReadonlyArray<{ from: string; to: string }>): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    next.set(from, (next.get(from) ?? new Set()).add(to));
    if (!next.has(to)) next.set(to, new Set());
  }
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node)!) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

describe('the import graph of src/', () => {
  it('has no cycle between top-level folders: each dependency goes one way', () => {
    const imports = crossImports();
    const cycles = dependencyCycles(imports);
    // On failure, the imports that close each cycle.
    const closing = cycles.map((members) =>
      imports
        .filter(({ from, to }) => members.includes(from) && members.includes(to))
        .map(({ edge }) => edge),
    );
    expect(closing).toEqual([]);
  });

  it('keeps auth/ ignorant of api-keys/ (the api-key strategy registers itself)', () => {
    const backwards = crossImports().filter(({ from, to }) => from === 'auth' && to === 'api-keys');
    expect(backwards).toEqual([]);
  });

  it('keeps plans/ below subscriptions/: plans import neither subscriptions/ nor any room that builds on them', () => {
    const fromPlans = new Set(crossImports().flatMap(({ from, to }) => (from === 'plans' ? [to] : [])));
    expect([...fromPlans].sort()).toEqual(['auth', 'common', 'config', 'database']);
  });

  it('sees the imports it checks: api-keys/ uses auth/ and database/', () => {
    const fromApiKeys = new Set(crossImports().flatMap(({ from, to }) => (from === 'api-keys' ? [to] : [])));
    expect([...fromApiKeys]).toEqual(expect.arrayContaining(['auth', 'database']));
  });
});

/** The production files of src/ that import one of `targets` (paths relative to src/), sorted. */
function importersOf(targets: readonly string[]): string[] {
  return sourceFiles(SRC)
    .filter((file) =>
      ts
        .preProcessFile(readFileSync(file, 'utf8'), true, true)
        .importedFiles.some(
          ({ fileName }) =>
            fileName.startsWith('.') &&
            targets.includes(relative(SRC, resolve(dirname(file), fileName)).replace(/\.js$/, '.ts')),
        ),
    )
    .map((file) => relative(SRC, file))
    .sort();
}

describe('the cached reads', () => {
  // A cache answers as of the barrier the access guard admitted the request through; a public route or a job that
  // read one would get answers as old as its time limit (docs/architecture.md, "The cache room"). So every file that
  // can reach a cached read is named here: a new one is a change to review against that rule, not a list to refresh.
  it('are reached only from the files reviewed for it', () => {
    const owners = importersOf(['cache/invalidated-cache.ts']);
    expect(owners).toEqual([
      'api-keys/api-key-lookup.service.ts',
      'auth/session-revocations.service.ts',
      'subscriptions/subscription-reads.service.ts',
    ]);
    const users = importersOf(owners).filter((file) => !file.endsWith('.module.ts'));
    expect(users).toEqual([
      // The API-key strategy, run by the guard after the barrier.
      'api-keys/api-key.strategy.ts',
      // Only SessionRevocations' writes (logout, sign out everywhere), no cached read.
      'auth/auth.service.ts',
      // The session strategies' shared check, run by the guard after the barrier.
      'auth/strategies/session-principals.ts',
      // status(), called by GET /subscriptions/status only.
      'subscriptions/subscriptions.service.ts',
    ]);
  });
});

describe('dependencyCycles', () => {
  it('finds a two-way dependency and a longer cycle, and nothing in a one-way graph', () => {
    expect(
      dependencyCycles([
        { from: 'a', to: 'b' },
        { from: 'b', to: 'a' },
        { from: 'c', to: 'd' },
        { from: 'd', to: 'e' },
        { from: 'e', to: 'c' },
        { from: 'e', to: 'f' },
      ]),
    ).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
    expect(
      dependencyCycles([
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'a', to: 'c' },
      ]),
    ).toEqual([]);
  });
});
