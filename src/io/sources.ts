/**
 * Opens the inputs named on the command line, in order, as one object stream
 * of chunks tagged with their source. `-` (or no file at all) is stdin. A file
 * that cannot be read is reported through `onError` and skipped, like cat(1).
 */
import { createReadStream, fstatSync, read } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';

/**
 * A chunk of one input, or the end of one input. A chunk with `release` was
 * read into a buffer that is read into again once `release` is called: the
 * consumer calls it when nothing it keeps points into `data` any more.
 */
export type SourceChunk = { source: string; data: Buffer; release?: () => void } | { source: string; end: true };

/** Shown as the source of standard input in messages (`stdin:12: …`). */
export const STDIN = 'stdin';

const READ_SIZE = 1024 * 1024;

/**
 * Read buffers used again once released: a tool that reads a 2 GiB file holds
 * a few of them, rather than leaving two thousand behind for the collector
 * (which lets tens of MiB of dead buffers pile up before it frees them). A
 * buffer is taken for each read and given back by the chunk's `release`; when
 * none is free (the consumer holds them all), a new one is made, so reading
 * never waits on the pool.
 */
export class ReadPool {
  private readonly free: Buffer[] = [];
  /**
   * `keep`: how many released buffers are kept for reuse. `poison`: fill a
   * buffer when it is released, so that a test sees any use of its bytes
   * after the release.
   */
  constructor(
    readonly size: number = READ_SIZE,
    private readonly keep = 4,
    private readonly poison = false,
  ) {}

  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafeSlow(this.size);
  }

  give(buf: Buffer): void {
    if (this.poison) buf.fill(0xff);
    if (this.free.length < this.keep) this.free.push(buf);
  }
}

/** Options of {@link openSources}. */
export interface SourceOptions {
  /**
   * Read regular files (named, or on stdin) into this pool's buffers; the
   * consumer must call each chunk's `release`. Without it, every read has a
   * buffer of its own.
   */
  pool?: ReadPool;
}

/**
 * The chunks of every input in order. `stdin` is the stream read for `-`.
 * Errors opening or reading a file go to `onError`; reading goes on with the next file.
 * `stdinName` names standard input in messages. Once `stop` is aborted, the
 * input being read ends where it is and no other is read: the inputs end early,
 * as if they had ended there.
 */
export function openSources(
  files: readonly string[],
  stdin: NodeJS.ReadableStream,
  onError: (source: string, error: NodeJS.ErrnoException) => void,
  stdinName: string = STDIN,
  stop?: AbortSignal,
  options: SourceOptions = {},
): Readable {
  const names = files.length > 0 ? files : ['-'];
  const pool = options.pool;
  async function* chunks(): AsyncGenerator<SourceChunk> {
    for (const name of names) {
      if (stop?.aborted) return;
      const source = name === '-' ? stdinName : name;
      let handle: FileHandle | undefined;
      if (pool !== undefined) {
        const file = await openInput(name === '-' ? (stdin as { fd?: unknown }).fd : name, source, onError);
        if (file === 'error') {
          yield { source, end: true };
          continue;
        }
        if (file?.regular) {
          yield* pooledChunks(file, source, pool, onError, stop);
          yield { source, end: true };
          continue;
        }
        // Open already (a named pipe opens once): read as a stream.
        handle = file?.handle ?? undefined;
      }
      const stream: NodeJS.ReadableStream =
        name === '-' ? stdin : createReadStream(name, handle === undefined ? { highWaterMark: READ_SIZE } : { highWaterMark: READ_SIZE, fd: handle });
      if (name === '-' && isDirectoryFd(stream)) {
        // Node reads a directory on file descriptor 0 as an empty stream: say what it is, as for a named one.
        onError(source, Object.assign(new Error('EISDIR: illegal operation on a directory, read'), { code: 'EISDIR' }));
        yield { source, end: true };
        continue;
      }
      // Only the input's own errors are about the input: an error thrown in
      // from downstream (the reader of stdout went away) is not.
      let readError: NodeJS.ErrnoException | null = null;
      stream.on('error', (error: NodeJS.ErrnoException) => {
        readError ??= error;
      });
      // A read waiting for input (a pipe that stays open) ends when reading is stopped.
      const onStop = (): void => void (stream as Partial<Readable>).destroy?.();
      stop?.addEventListener('abort', onStop, { once: true });
      try {
        for await (const data of stream) {
          if (stop?.aborted) break;
          yield { source, data: typeof data === 'string' ? Buffer.from(data) : (data as Buffer) };
        }
      } catch (error) {
        if (!stop?.aborted) {
          if (readError === null) throw error;
          onError(source, readError);
        }
      } finally {
        stop?.removeEventListener('abort', onStop);
      }
      yield { source, end: true };
    }
  }
  return Readable.from(chunks(), { objectMode: true, highWaterMark: 4 });
}

/** An input opened to be read with a pool: `handle` is null for a file descriptor (stdin) the process owns. */
interface OpenInput {
  handle: FileHandle | null;
  fd: number;
  regular: boolean;
}

/**
 * Opens an input to see whether it is a regular file, to be read with a pool:
 * a path, or a file descriptor (stdin redirected from a file, read on from
 * where it is). Undefined for a file descriptor that is not a regular file or
 * for no descriptor at all (read as a stream, which knows how to wait on
 * pipes and terminals); 'error' when a named file cannot be opened (reported).
 */
async function openInput(
  what: unknown,
  source: string,
  onError: (source: string, error: NodeJS.ErrnoException) => void,
): Promise<OpenInput | 'error' | undefined> {
  if (typeof what === 'number') {
    try {
      return fstatSync(what).isFile() ? { handle: null, fd: what, regular: true } : undefined;
    } catch {
      return undefined;
    }
  }
  if (typeof what !== 'string') return undefined;
  let handle: FileHandle;
  try {
    handle = await open(what, 'r');
  } catch (error) {
    onError(source, error as NodeJS.ErrnoException);
    return 'error';
  }
  let regular = false;
  try {
    regular = (await handle.stat()).isFile();
  } catch {
    // Not known to be a regular file: read as a stream, which reports what goes wrong.
  }
  return { handle, fd: handle.fd, regular };
}

/** What a read came to: the bytes read, or its error. */
type ReadOutcome = { bytesRead: number } | { error: NodeJS.ErrnoException };

/** A read into one of the pool's buffers, its outcome kept (never a rejected promise nobody awaits). */
interface PendingRead {
  buf: Buffer;
  done: Promise<ReadOutcome>;
}

/**
 * The chunks of a regular file, read into the pool's buffers; each is released
 * by its consumer. The next read is started before a chunk is handed over, so
 * the disk (or the page cache) is read while the chunk is processed.
 */
async function* pooledChunks(
  file: OpenInput,
  source: string,
  pool: ReadPool,
  onError: (source: string, error: NodeJS.ErrnoException) => void,
  stop?: AbortSignal,
): AsyncGenerator<SourceChunk> {
  const startRead = (): PendingRead => {
    const buf = pool.take();
    return { buf, done: readInto(file, buf) };
  };
  let pending: PendingRead | undefined;
  try {
    if (stop?.aborted) return;
    pending = startRead();
    for (;;) {
      const { buf, done } = pending;
      pending = undefined;
      const outcome = await done;
      if ('error' in outcome) {
        pool.give(buf);
        onError(source, outcome.error);
        return;
      }
      if (outcome.bytesRead === 0 || stop?.aborted) {
        pool.give(buf);
        return;
      }
      pending = startRead();
      yield { source, data: buf.subarray(0, outcome.bytesRead), release: () => pool.give(buf) };
    }
  } finally {
    // A read started ahead and not wanted: let it finish before its buffer is reused or the file closed.
    if (pending !== undefined) {
      await pending.done;
      pool.give(pending.buf);
    }
    await file.handle?.close();
  }
}

/** Reads the next bytes of a file into `buf`, from where the file is (stdin may be part-read). */
function readInto(file: OpenInput, buf: Buffer): Promise<ReadOutcome> {
  return new Promise((resolve) => {
    read(file.fd, buf, 0, buf.length, null, (error, bytesRead) => resolve(error ? { error } : { bytesRead }));
  });
}

/** True when the stream reads a file descriptor that is a directory. */
function isDirectoryFd(stream: NodeJS.ReadableStream): boolean {
  const fd = (stream as { fd?: unknown }).fd;
  if (typeof fd !== 'number') return false;
  try {
    return fstatSync(fd).isDirectory();
  } catch {
    return false;
  }
}

/** A one-line description of a system error, like the C library's (`No such file or directory`). */
export function describeError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'No such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'Permission denied';
    case 'EISDIR':
      return 'Is a directory';
    case 'ENOTDIR':
      return 'Not a directory';
    case 'EMFILE':
    case 'ENFILE':
      return 'Too many open files';
    case 'EIO':
      return 'Input/output error';
    case 'ENOSPC':
      return 'No space left on device';
    case 'EBADF':
      return 'Bad file descriptor';
    default:
      return error.message.split('\n')[0] ?? String(error);
  }
}
