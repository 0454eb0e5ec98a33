import { spawn } from 'node:child_process';
import type { Logger } from 'pino';

/**
 * Reads the server's pid (one line each time it starts, `none` once it has exited) from the pipe this process
 * holds open. The pipe closes
 * when this process ends, however it ends (SIGKILL and the kernel's OOM killer included): the shell then asks the
 * server for a fast shutdown (SIGINT) and, should it still run after the grace period, an immediate one (SIGQUIT).
 * `stop` is written on a deliberate shutdown, after which the server is already gone.
 */
const WATCHDOG_SCRIPT = `
pid=
while IFS= read -r line; do
  case "$line" in
    stop) exit 0 ;;
    none) pid= ;;
    *[!0-9]*|'') ;;
    *) pid=$line ;;
  esac
done
[ -n "$pid" ] || exit 0
kill -INT "$pid" 2>/dev/null || exit 0
waited=0
while kill -0 "$pid" 2>/dev/null; do
  if [ "$waited" -ge 150 ]; then kill -QUIT "$pid" 2>/dev/null; exit 0; fi
  sleep 0.1
  waited=$((waited + 1))
done
`;

export interface PostmasterWatchdog {
  /** The server now running (its first start, or a restart). */
  watch(pid: number): void;
  /** That server has exited: its pid may be another process's soon. */
  forget(pid: number): void;
  /** A deliberate stop: the server was stopped, the watchdog leaves. */
  release(): void;
}

/**
 * Ties an embedded PostgreSQL's life to this process's: a `sh` (a few hundred kilobytes, not a second Node) in a
 * process group of its own, so a terminal's Ctrl-C does not reach it, holding the read end of a pipe. Nothing in
 * this process needs to run for it to act, which an 'exit' handler cannot promise (SIGKILL, out of memory). Without
 * a POSIX shell (Windows) there is none, and the next start stops the orphan instead.
 */
export function startPostmasterWatchdog(logger: Logger): PostmasterWatchdog {
  if (process.platform === 'win32') {
    return { watch: () => undefined, forget: () => undefined, release: () => undefined };
  }
  const shell = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  const pipe = shell.stdin!;
  let released = false;
  let watched: number | undefined;
  const warn = (error: Error): void => {
    if (!released) logger.warn({ err: error }, 'the embedded PostgreSQL watchdog is gone');
  };
  shell.once('error', warn);
  pipe.on('error', warn);
  // Neither the shell nor its pipe may keep this process alive: the pipe closing is the very signal.
  shell.unref();
  (pipe as unknown as { unref(): void }).unref();
  return {
    watch: (pid) => {
      watched = pid;
      if (!released) pipe.write(`${pid}\n`);
    },
    forget: (pid) => {
      if (pid !== watched) return;
      watched = undefined;
      if (!released) pipe.write('none\n');
    },
    release: () => {
      if (released) return;
      released = true;
      pipe.end('stop\n');
    },
  };
}
