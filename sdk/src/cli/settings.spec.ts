import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialFor, saveSession, serviceUrl, UsageError } from './settings.js';

describe('tollgate settings', () => {
  const start = process.cwd();
  const saved = { TOLLGATE_URL: process.env.TOLLGATE_URL, TOLLGATE_API_KEY: process.env.TOLLGATE_API_KEY };
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'tollgate-settings-'));
    process.chdir(directory);
    delete process.env.TOLLGATE_URL;
    delete process.env.TOLLGATE_API_KEY;
  });
  afterEach(() => {
    process.chdir(start);
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('finds the service in --url, TOLLGATE_URL, the .env (its TOLLGATE_URL, else its PORT), else port 3000', () => {
    expect(serviceUrl(undefined)).toBe('http://localhost:3000');
    writeFileSync('.env', 'PORT=4100\n');
    expect(serviceUrl(undefined)).toBe('http://localhost:4100');
    writeFileSync('.env', 'PORT=4100\nTOLLGATE_URL=http://127.0.0.1:4200/\n');
    expect(serviceUrl(undefined)).toBe('http://127.0.0.1:4200');
    process.env.TOLLGATE_URL = 'http://127.0.0.1:4300';
    expect(serviceUrl(undefined)).toBe('http://127.0.0.1:4300');
    expect(serviceUrl('http://127.0.0.1:4400')).toBe('http://127.0.0.1:4400');
  });

  it('uses the stored session of the same URL while it lasts, and TOLLGATE_API_KEY first', () => {
    const file = join(directory, 'session.json');
    expect(() => credentialFor('http://localhost:3000', file)).toThrow(UsageError);
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    saveSession(file, { url: 'http://localhost:3000', address: '0x1', token: 'a.b.c', expiresAt });
    expect(credentialFor('http://localhost:3000', file)).toMatchObject({ kind: 'session', token: 'a.b.c' });
    expect(() => credentialFor('http://localhost:4000', file)).toThrow(/is for http:\/\/localhost:3000/);
    saveSession(file, {
      url: 'http://localhost:3000',
      address: '0x1',
      token: 'a.b.c',
      expiresAt: new Date(0).toISOString(),
    });
    expect(() => credentialFor('http://localhost:3000', file)).toThrow(/expired/);

    writeFileSync('.env', 'TOLLGATE_API_KEY=tg_4Fq9ZkP2mX7vR1sT8bW3nY6cJ0dL5hGa2Kx9Qp\n');
    expect(credentialFor('http://localhost:3000', file)).toMatchObject({ kind: 'api_key' });
    process.env.TOLLGATE_API_KEY = 'not-a-key';
    expect(() => credentialFor('http://localhost:3000', file)).toThrow(/TOLLGATE_API_KEY is not an API key/);
  });
});
