/**
 * The pipes a command run after `--` writes its stdout and stderr into, as a
 * shell makes them. Node.js's own (`stdio: 'pipe'`) are socket pairs, which
 * a command cannot open by name: a wrapper's `echo … > /dev/stderr` or `tee
 * /dev/stdout` fails (no such device or address). Named pipes (FIFOs) can be:
 * mkfifo(1) makes two, mode 600, in a temporary directory of our own, each
 * opened at both ends, and the directory is removed at once. The only file
 * made and the only process started by a tool besides the command, neither
 * named by its input.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Two named pipes, open: the ends we read ([stdout, stderr]) and those the command writes to. */
export interface NamedPipes {
  read: [number, number];
  write: [number, number];
}

/**
 * Two named pipes, opened and unlinked; null where none can be made (no
 * mkfifo(1), no temporary directory we may write in): Node.js's pipes then.
 */
export function namedPipes(): NamedPipes | null {
  const fds: number[] = [];
  let dir: string | undefined;
  try {
    dir = mkdtempSync(join(tmpdir(), 'ndjson-agent-'));
    const names = [join(dir, 'stdout'), join(dir, 'stderr')];
    execFileSync('mkfifo', ['-m', '600', ...names], { stdio: 'ignore' });
    // Our end does not wait for a writer (none yet); the command's then finds a reader, and stays a blocking one.
    for (const fifo of names) fds.push(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK), openSync(fifo, constants.O_WRONLY));
    return { read: [fds[0]!, fds[2]!], write: [fds[1]!, fds[3]!] };
  } catch {
    for (const fd of fds) closeSync(fd);
    return null;
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** The stream of an end we read from. */
export function readEnd(fd: number): Socket {
  return new Socket({ fd, readable: true, writable: false });
}

/** Closes an end the command has been given. */
export function closeEnd(fd: number): void {
  closeSync(fd);
}
