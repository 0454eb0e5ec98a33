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

/**
 * Every arrow allowed between top-level folders of src/: folder → the folders it may import. An import along an
 * arrow not declared here fails, so a new dependency between features is a reviewed change to this table (and to
 * docs/architecture.md, "Dependency directions", which shows it and is checked against it). The composition roots
 * in src/ itself (app.module.ts, data-source.ts, …) may import anything.
 */
const ALLOWED_ARROWS: Readonly<Record<string, readonly string[]>> = {
  // Subscriptions through its seams only; the sign-in's signature verifier; the keeper's balance in health.
  'auto-renew': [
    'auth',
    'cache',
    'common',
    'config',
    'database',
    'health',
    'metrics',
    'plans',
    'subscriptions',
    'tracing',
  ],
  'api-keys': ['auth', 'cache', 'common', 'config', 'database', 'events'],
  // Never api-keys: a credential of its own registers its strategy with auth.
  auth: ['cache', 'common', 'config', 'database', 'tracing'],
  bin: ['config', 'openapi'],
  bootstrap: ['auth', 'common', 'config', 'database', 'metrics', 'tracing'],
  cache: ['config', 'database', 'metrics'],
  common: ['metrics', 'tracing'],
  config: [],
  dashboard: ['common', 'config'],
  database: ['common', 'metrics'],
  entitlements: ['auth', 'common', 'plans', 'subscriptions'],
  events: ['auth', 'common', 'config', 'database'],
  health: ['auth', 'common', 'database'],
  metrics: ['config'],
  // Never subscriptions: they register whether a plan is in use through PlanUsage.
  plans: ['auth', 'cache', 'common', 'config', 'database'],
  openapi: ['api-keys', 'auth', 'common', 'events', 'subscriptions', 'webhooks'],
  subscriptions: ['auth', 'cache', 'common', 'config', 'database', 'events', 'metrics', 'plans', 'tracing'],
  // The facade only (tracing.ts); the OpenTelemetry SDK is loaded by the entry points alone.
  tracing: ['config'],
  webhooks: ['auth', 'common', 'config', 'database', 'events', 'metrics', 'tracing'],
};

/** The arrows of `imports`, as `from → to`, sorted and without repeats. */
function arrowsOf(imports: readonly CrossImport[]): string[] {
  return [...new Set(imports.map(({ from, to }) => `${from} → ${to}`))].sort();
}

/** The arrows table of docs/architecture.md, "Dependency directions": `| \`folder\` | \`to\`, \`to\` | why |`. */
function documentedArrows(): Record<string, string[]> {
  const doc = readFileSync(join(SRC, '..', 'docs', 'architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Dependency directions'));
  const table: Record<string, string[]> = {};
  for (const [, folder, targets] of section.matchAll(/^\|\s*`([\w-]+)`\s*\|([^|]*)\|/gm)) {
    table[folder!] = [...targets!.matchAll(/`([\w-]+)`/g)].map(([, target]) => target!);
  }
  return table;
}

/** Every import between two production files of src/, relative to src/ (type-only and re-exports included). */
function fileImports(): Array<{ from: string; to: string }> {
  return sourceFiles(SRC).flatMap((file) =>
    ts
      .preProcessFile(readFileSync(file, 'utf8'), true, true)
      .importedFiles.filter(({ fileName }) => fileName.startsWith('.'))
      .map(({ fileName }) => ({
        from: relative(SRC, file),
        to: relative(SRC, resolve(dirname(file), fileName)).replace(/\.js$/, '.ts'),
      })),
  );
}

describe('the import graph of src/', () => {
  it('takes only the declared arrows between top-level folders', () => {
    const undeclared = crossImports()
      .filter(({ from, to }) => !(ALLOWED_ARROWS[from] ?? []).includes(to))
      .map(({ from, to, edge }) => `${from} → ${to}: ${edge}`);
    expect(undeclared).toEqual([]);
  });

  it('declares only arrows it takes, so the table reads as the graph', () => {
    const declared = Object.entries(ALLOWED_ARROWS).flatMap(([from, targets]) =>
      targets.map((to) => `${from} → ${to}`),
    );
    expect(declared.sort()).toEqual(arrowsOf(crossImports()));
  });

  it('declares arrows that go one way: no cycle between top-level folders', () => {
    const declared = Object.entries(ALLOWED_ARROWS).flatMap(([from, targets]) =>
      targets.map((to) => ({ from, to })),
    );
    expect(dependencyCycles(declared)).toEqual([]);
  });

  it('is the table docs/architecture.md shows', () => {
    const documented = documentedArrows();
    expect(Object.keys(documented).sort()).toEqual(Object.keys(ALLOWED_ARROWS).sort());
    for (const [folder, targets] of Object.entries(ALLOWED_ARROWS)) {
      expect({ folder, targets: [...documented[folder]!].sort() }).toEqual({
        folder,
        targets: [...targets].sort(),
      });
    }
  });

  it('has no cycle between files: of two files, at most one imports the other, even through others', () => {
    expect(dependencyCycles(fileImports())).toEqual([]);
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
      'auto-renew/mandate-reads.service.ts',
      'plans/plan-reads.service.ts',
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
      // Registers MandateReads with SubscriptionAutoRenew as its cached reader, which only SubscriptionLookup calls.
      'auto-renew/auto-renew.service.ts',
      // The seam that reads a subscription and its plans: GET /subscriptions/status, and other features while
      // serving a request the guard admitted (docs/extending.md, "Depending on another feature").
      'subscriptions/subscription-lookup.service.ts',
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
