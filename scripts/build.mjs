/**
 * `npm run build` (also run by `npm start`, `npm test`'s pretest and the scripts that need dist/): compiles src/
 * with tsc into dist/ and the dashboard (web/) with Vite into dist/web, each part only when its inputs changed since
 * its last build. A part's inputs are hashed (paths and contents, so a checkout that only touches mtimes is still
 * current) and the hash kept in dist/.build-stamp.json once the part built cleanly. tsc is incremental
 * (dist/.tsbuildinfo), so a changed part recompiles only what the change affects. `--force` rebuilds both parts.
 *
 * Outputs whose source is gone (a moved or deleted file) are removed, so dist/ holds what src/ compiles to.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const stampFile = join(dist, '.build-stamp.json');
const force = process.argv.includes('--force');

/** Every file under `dir` (relative to the root), sorted; none when the folder does not exist. */
function filesUnder(dir, keep = () => true) {
  const absolute = join(root, dir);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter(keep)
    .sort();
}

function hashOf(files) {
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  return hash.digest('hex');
}

function run(command, args) {
  const result = spawnSync(process.execPath, [join(root, command), ...args], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const serverSources = filesUnder('src', (file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'));
const compiled = (source) => join(dist, source.replace(/\.ts$/, '.js'));

/** Removes compiled files of dist/src whose source no longer exists. */
function pruneServerOutputs() {
  for (const output of filesUnder('dist/src', (file) => /\.js(\.map)?$/.test(file))) {
    const source = relative('dist', output).replace(/\.js(\.map)?$/, '.ts');
    if (!existsSync(join(root, source))) rmSync(join(root, output));
  }
}

const parts = [
  {
    name: 'server',
    inputs: () => [...serverSources, 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    built: () => serverSources.every((source) => existsSync(compiled(source))),
    build: () => {
      // tsc trusts its build info: with an output missing, start over rather than skip the file.
      if (!serverSources.every((source) => existsSync(compiled(source))))
        rmSync(join(dist, '.tsbuildinfo'), { force: true });
      run('node_modules/typescript/bin/tsc', ['-p', 'tsconfig.build.json']);
      pruneServerOutputs();
    },
  },
  {
    name: 'dashboard',
    // The dashboard bundles the client package as built in sdk/dist.
    inputs: () => [...filesUnder('web'), ...filesUnder('sdk/dist'), 'package-lock.json'],
    built: () => existsSync(join(dist, 'web', 'index.html')),
    build: () =>
      run('node_modules/vite/bin/vite.js', ['build', '--config', 'web/vite.config.ts', '--logLevel', 'warn']),
  },
];

const stamps = existsSync(stampFile) ? JSON.parse(readFileSync(stampFile, 'utf8')) : {};
for (const part of parts) {
  const hash = hashOf(part.inputs());
  if (!force && stamps[part.name] === hash && part.built()) {
    console.warn(`build: ${part.name} is current`);
    continue;
  }
  const started = performance.now();
  part.build();
  stamps[part.name] = hash;
  writeFileSync(stampFile, `${JSON.stringify(stamps, null, 2)}\n`);
  console.warn(`build: ${part.name} built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
