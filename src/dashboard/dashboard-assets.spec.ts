import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DashboardBuild, defaultDashboardDir, loadDashboardAssets } from './dashboard-assets.js';

describe('loadDashboardAssets', () => {
  it('is undefined when the folder holds no build', () => {
    expect(loadDashboardAssets(join(tmpdir(), 'tollgate-no-such-dashboard'))).toBeUndefined();
    const empty = mkdtempSync(join(tmpdir(), 'tollgate-dashboard-'));
    expect(loadDashboardAssets(empty)).toBeUndefined();
  });

  it('keys every servable file by its URL path, hashed bundles immutable, the page not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-dashboard-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html>');
    writeFileSync(join(dir, 'favicon.svg'), '<svg/>');
    writeFileSync(join(dir, 'assets', 'index-1a2b.js'), 'export {}');
    writeFileSync(join(dir, 'assets', 'index-1a2b.css'), 'body{}');
    writeFileSync(join(dir, 'notes.txt'), 'not served');

    const assets = loadDashboardAssets(dir)!;
    expect([...assets.keys()].sort()).toEqual([
      'assets/index-1a2b.css',
      'assets/index-1a2b.js',
      'favicon.svg',
      'index.html',
    ]);
    expect(assets.get('index.html')).toMatchObject({ type: 'text/html; charset=utf-8', immutable: false });
    expect(assets.get('assets/index-1a2b.js')).toMatchObject({
      type: 'application/javascript; charset=utf-8',
      immutable: true,
    });
    expect(assets.get('assets/index-1a2b.js')!.body.toString()).toBe('export {}');
  });

  it('looks for the build in dist/web of the package', () => {
    expect(defaultDashboardDir()).toBe(join(process.cwd(), 'dist', 'web'));
  });
});

describe('DashboardBuild', () => {
  it('serves a build that lands after start, and each rebuild without a restart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-dashboard-'));
    const build = new DashboardBuild(dir, { reload: true });
    expect(build.current()).toBeUndefined();

    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'assets', 'index-1.js'), 'export {}');
    writeFileSync(join(dir, 'index.html'), '<script src="/dashboard/assets/index-1.js"></script>');
    expect([...build.current()!.keys()].sort()).toEqual(['assets/index-1.js', 'index.html']);

    // What a watch build does: empty the folder, write new hashed bundles and a longer page.
    rmSync(join(dir, 'assets'), { recursive: true });
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'assets', 'index-22.js'), 'export {}');
    writeFileSync(join(dir, 'index.html'), '<script src="/dashboard/assets/index-22.js"></script>');
    const rebuilt = build.current()!;
    expect([...rebuilt.keys()].sort()).toEqual(['assets/index-22.js', 'index.html']);
    expect(rebuilt.get('index.html')!.body.toString()).toContain('index-22.js');
    expect(build.current()).toBe(rebuilt);

    rmSync(join(dir, 'index.html'));
    expect(build.current()).toBeUndefined();
  });

  it('in production serves the build read at start, whatever the folder holds later', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-dashboard-'));
    writeFileSync(join(dir, 'index.html'), '<title>at start</title>');
    const build = new DashboardBuild(dir, { reload: false });

    writeFileSync(join(dir, 'index.html'), '<title>written later, and longer</title>');
    expect(build.current()!.get('index.html')!.body.toString()).toBe('<title>at start</title>');
    rmSync(join(dir, 'index.html'));
    expect([...build.current()!.keys()]).toEqual(['index.html']);
  });

  it('in production starts without a build it cannot read, and says why', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-dashboard-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html>');
    // A file that cannot be read: a link to nothing.
    symlinkSync(join(dir, 'gone.js'), join(dir, 'index-1.js'));
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      expect(new DashboardBuild(dir, { reload: false }).current()).toBeUndefined();
      expect(logged).toHaveBeenCalledWith(
        expect.stringContaining(`the dashboard build in ${dir} could not be read`),
      );
    } finally {
      logged.mockRestore();
    }
  });
});
