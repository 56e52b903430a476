/**
 * The output layer: runs a tool's pipeline into stdout with backpressure, and
 * turns what can go wrong on the way out into one outcome. A closed stdout
 * (`| head -1`) is not an error: the tool stops quietly. Any other write error
 * is reported once, without a stack trace.
 */
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import type { Readable, Transform } from 'node:stream';
import { describeError } from './sources.js';

/** How writing ended. */
export type OutputOutcome =
  | { kind: 'done' }
  /** The reader went away (EPIPE): stop quietly, status 0. */
  | { kind: 'closed' }
  /** Writing failed for another reason. */
  | { kind: 'write-error'; message: string }
  /** The tool stream failed (for instance under --strict). */
  | { kind: 'failed'; error: Error };

function isEpipe(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

/**
 * Makes a stream's later EPIPE errors harmless: once the reader has gone, any
 * further error on it must not surface as an uncaught exception.
 */
export function guardOutput(stream: NodeJS.WritableStream): void {
  if ((stream as { __ndjsonGuarded?: boolean }).__ndjsonGuarded) return;
  (stream as { __ndjsonGuarded?: boolean }).__ndjsonGuarded = true;
  stream.on('error', () => {});
}

/**
 * Pipes `source` through `tool` into `out` without ending `out` (it may be
 * stdout), and waits until everything written has been handed to the system.
 */
export async function runOutput(source: Readable, tool: Transform, out: NodeJS.WritableStream): Promise<OutputOutcome> {
  let writeError: unknown = null;
  const onError = (error: unknown): void => {
    writeError ??= error;
  };
  out.on('error', onError);
  try {
    await pipeline(source, tool, out, { end: false });
    await handedOver(out);
    return { kind: 'done' };
  } catch (error) {
    const cause = writeError ?? error;
    if (isEpipe(cause)) return { kind: 'closed' };
    if (writeError !== null) return { kind: 'write-error', message: describeError(cause as NodeJS.ErrnoException) };
    // What the tool made before it failed is written out first (the command exits once it returns).
    try {
      await handedOver(out);
    } catch (outError) {
      if (!isEpipe(outError)) return { kind: 'write-error', message: describeError(outError as NodeJS.ErrnoException) };
    }
    return { kind: 'failed', error: error as Error };
  } finally {
    out.off('error', onError);
    source.destroy();
  }
}

/**
 * Resolves once everything written to `out` has been handed to the system.
 * Only what is still buffered is waited for, behind an empty write: an
 * empty write is a system call of its own, which fails on a device that
 * takes no bytes (`/dev/full`) even when nothing was to be written.
 */
function handedOver(out: NodeJS.WritableStream): Promise<void> {
  if (held(out) === 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    out.write('', (error) => (error ? reject(error) : resolve()));
  });
}

/** The stream an {@link untilClosed} stream writes into. */
const INTO = Symbol('into');

/** What `out` holds that is not yet handed to the system: its own buffer, and that of the stream it writes into. */
function held(out: NodeJS.WritableStream): number {
  const into = (out as { [INTO]?: NodeJS.WritableStream })[INTO];
  return ((out as Partial<Writable>).writableLength ?? 1) + (into === undefined ? 0 : held(into));
}

/**
 * Resolves once what was written to `out` has been handed to the system, or
 * `out` has failed (its reader gone): never rejects. Before the process
 * exits, which drops what a pipe's slow reader has not taken yet.
 */
export function drained(out: NodeJS.WritableStream): Promise<void> {
  return handedOver(out).catch(() => {});
}

/** Writes `data` to `out` and waits until it is handed to the system; a reader that went away is `closed`. */
export function writeAll(out: NodeJS.WritableStream, data: string | Buffer): Promise<OutputOutcome> {
  return new Promise((resolve) => {
    const onError = (error: unknown): void => {
      resolve(isEpipe(error) ? { kind: 'closed' } : { kind: 'write-error', message: describeError(error as NodeJS.ErrnoException) });
    };
    out.once('error', onError);
    out.write(data, (error) => {
      out.off('error', onError);
      if (error) onError(error);
      else resolve({ kind: 'done' });
    });
  });
}

/**
 * `out`, as a stream that takes all that is written to it: once its reader
 * has gone (EPIPE), the rest is dropped, so that a tool that judges its
 * whole input (its checks) reads it to its end whatever its reader does.
 * A chunk is handed on at once, and the next taken when `out` takes more
 * (backpressure: its `drain`), as a pipe into `out` itself would; an empty
 * write (see handedOver) is done once `out` has handed all before it to
 * the system. Another write error is the stream's.
 */
export function untilClosed(out: NodeJS.WritableStream): Writable {
  let closed = false;
  // The write waiting for `out` to take more.
  let waiting: (() => void) | null = null;
  const release = (): void => {
    const done = waiting;
    waiting = null;
    out.off('drain', release);
    done?.();
  };
  const target = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (closed) {
        done();
        return;
      }
      const last = chunk.length === 0;
      const taken = out.write(chunk, (error) => {
        if (error && !isEpipe(error)) {
          target.destroy(error);
          return;
        }
        if (error) closed = true;
        if (last) done();
        // Its reader gone, `out` drains no more: the write waiting for it goes on.
        else if (closed) release();
      });
      if (last) return;
      if (taken || closed) {
        done();
        return;
      }
      waiting = done;
      out.once('drain', release);
    },
  });
  // Its chunks handed on are still `out`'s to write: waiting for this stream is waiting for `out` (see handedOver).
  Object.defineProperty(target, INTO, { value: out });
  return target;
}
