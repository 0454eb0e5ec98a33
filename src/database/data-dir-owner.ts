import { execFileSync } from 'node:child_process';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Names the file in DATA_DIR that holds the pid of the Tollgate process owning its embedded PostgreSQL. */
export const OWNER_FILE = 'tollgate.pid';

/** A second Tollgate on a DATA_DIR whose owner is alive: it must not start (exit 78) nor touch that database. */
export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by another Tollgate (pid ${pid}): stop that one first, or give this one ` +
        'another DATA_DIR or a DATABASE_URL.',
    );
    this.name = 'DataDirInUse';
  }
}

export interface ProcessInfo {
  ppid: number;
  /** When the process started, as the system tells it: tells a pid's reuse from its first holder. */
  started: string;
  command: string;
}

/** A process's parent, start time and command line, or undefined when there is no such process. */
export function processInfo(pid: number): ProcessInfo | undefined {
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The fields after the command name (in parentheses, which may itself hold spaces): state, ppid, … starttime.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      return { ppid: Number(fields[1]), started: fields[19] ?? '', command };
    } catch {
      return undefined;
    }
  }
  try {
    const line = execFileSync('ps', ['-o', 'ppid=', '-o', 'lstart=', '-o', 'command=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const match = /^(\d+)\s+(\w{3}\s+\w{3}\s+\d+\s+[\d:]+\s+\d{4})\s+(.*)$/.exec(line);
    return match ? { ppid: Number(match[1]), started: match[2]!, command: match[3]! } : undefined;
  } catch {
    return undefined;
  }
}

interface Owner {
  pid: number;
  started: string;
}

function parseOwner(text: string): Owner | undefined {
  try {
    const owner = JSON.parse(text) as Partial<Owner>;
    return typeof owner.pid === 'number' && Number.isInteger(owner.pid) && owner.pid > 0
      ? { pid: owner.pid, started: typeof owner.started === 'string' ? owner.started : '' }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process `pid` exists (EPERM: it does, under another user). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Alive, and the same process that wrote the file (not a later one given its recycled pid). */
function isAlive(owner: Owner): boolean {
  if (!isRunning(owner.pid)) return false;
  const info = processInfo(owner.pid);
  return info === undefined || owner.started === '' || info.started === owner.started;
}

export interface DataDirClaim {
  /** Removes the owner file (when it is still this process's). Also done on any exit of the process. */
  release(): void;
}

/**
 * Makes this process the owner of `dataDir`, or throws DataDirInUse naming the live owner. The owner file appears
 * whole or not at all (written aside, then hard-linked into place, which fails when one exists); one left by a
 * process that is gone (SIGKILL, a crash) is taken over.
 */
export async function claimDataDir(dataDir: string): Promise<DataDirClaim> {
  const path = join(dataDir, OWNER_FILE);
  const me = JSON.stringify({ pid: process.pid, started: processInfo(process.pid)?.started ?? '' });
  const aside = join(dataDir, `${OWNER_FILE}.${process.pid}`);
  await writeFile(aside, `${me}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(aside, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
      }
      const owner = parseOwner(await readFile(path, 'utf8').catch(() => ''));
      if (owner && owner.pid !== process.pid && isAlive(owner)) throw new DataDirInUse(dataDir, owner.pid);
      await rm(path, { force: true });
    }
  } finally {
    await rm(aside, { force: true });
  }
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      if (parseOwner(readFileSync(path, 'utf8'))?.pid === process.pid) unlinkSync(path);
    } catch {
      // Already gone.
    }
  };
  process.on('exit', release);
  return { release };
}

/**
 * The live Tollgate that started the PostgreSQL `postmasterPid`, if any: its parent, unless that is gone (the
 * server was then handed to init or a subreaper) or is not a node process. Guards against stopping a database a
 * live instance still uses, should its owner file have been removed or replaced.
 */
export function liveParentOf(postmasterPid: number): number | undefined {
  const parent = processInfo(postmasterPid)?.ppid;
  if (parent === undefined || parent <= 1 || parent === process.pid) return undefined;
  const info = processInfo(parent);
  return info && /(^|\/)node(\s|$)/.test(info.command.split(' ')[0] ?? '') ? parent : undefined;
}
