/**
 * Opens the inputs named on the command line, in order, as one object stream
 * of chunks tagged with their source. `-` (or no file at all) is stdin. A file
 * that cannot be read ends with its error (see SourceChunk), for the consumer
 * to report, and is skipped, like cat(1).
 */
import { close, constants, createReadStream, existsSync, fstat, fstatSync, open, readFileSync, readSync, statSync, type Stats } from 'node:fs';
import { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';

// node:fs's calls as promises: node:fs/promises would take 3 ms of every start to load.
export const openFd = promisify(open);
export const fstatFd = promisify(fstat);
export const closeFd = promisify(close);

/** True when `path` names something that exists (a usage message says how to read a file named like an option). */
export function pathExists(path: string): boolean {
  return existsSync(path);
}

/** What `path` names (following links), or undefined where nothing is there to see. */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** True when `path` names a regular file (following links). */
export function isFile(path: string): boolean {
  return statOf(path)?.isFile() === true;
}

/** True when `path` names a directory (or a link to one). */
export function isDirectory(path: string): boolean {
  return statOf(path)?.isDirectory() === true;
}

/** True when `path` names a regular file we may execute. */
export function isExecutableFile(path: string): boolean {
  const stat = statOf(path);
  // Any execute bit: whose it is, the system judges at the run (root may run a file with any of them).
  return stat !== undefined && stat.isFile() && (stat.mode & 0o111) !== 0;
}

/**
 * Where the next read of `fd` starts (its offset), as Linux tells it in
 * /proc/self/fdinfo; undefined where that cannot be read. Node reads a file
 * at a given offset or at the descriptor's own, but cannot ask for the latter:
 * a file on standard input may have been read in part before (`{ head -n 1;
 * tool; } < file`).
 */
export function descriptorOffset(fd: number): number | undefined {
  try {
    const pos = /^pos:\s*(\d+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'));
    return pos === null ? undefined : Number(pos[1]);
  } catch {
    return undefined;
  }
}

/**
 * True when the file descriptors `a` and `b` are one file, pipe or terminal
 * (the same device and inode: `2>&1`); false when they are not, or either
 * cannot be looked at.
 */
export function sameFile(a: number, b: number): boolean {
  try {
    const x = fstatSync(a);
    const y = fstatSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/** A regular file, by its device and inode. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/**
 * The regular file the file descriptor `fd` writes to (stdout redirected to
 * a file: `> out`, `>> out`); undefined for anything else.
 */
export function outputFile(fd: number): FileIdentity | undefined {
  try {
    const stat = fstatSync(fd);
    return stat.isFile() ? { dev: stat.dev, ino: stat.ino } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The error of an input that is the file the output is written to, with
 * bytes left to read: reading it would read the output back, and a tool that
 * copies lines (`ndjson-dedupe f >> f`) would read on until the disk is
 * full. As cat(1), the input is not read.
 */
function inputIsOutput(): NodeJS.ErrnoException {
  return new Error('input file is output file');
}

/**
 * A chunk of one input, or the end of one input. A chunk with `release` was
 * read into a buffer that is read into again once `release` is called: the
 * consumer calls it when nothing it keeps points into `data` any more. An
 * input that could not be opened or read to its end ends with the `error`
 * (reported by the consumer, which thus reports it after the output of the
 * inputs before it). An input whose reading was stopped (see
 * {@link openSources}) ends `stopped`: what it ends with may be a line cut by
 * the stop, not by its writer.
 */
export type SourceChunk = (
  | { source: string; data: Buffer; release?: () => void }
  | { source: string; end: true; error?: NodeJS.ErrnoException; stopped?: true }
) & { readonly [SOURCE_CHUNK]: true };

/**
 * The mark of a {@link SourceChunk}: only the chunks made here (by {@link
 * dataChunk} and {@link endChunk}) are read as such by a tool stream; any
 * other object written to one is refused, as in a stream of bytes (an event
 * record of readEvents(), say, is not the input).
 */
export const SOURCE_CHUNK: unique symbol = Symbol('ndjson-agent source chunk');

/** A chunk of the input `source`; `release`: see {@link SourceChunk}. */
export function dataChunk(source: string, data: Buffer, release?: () => void): SourceChunk {
  return release === undefined ? { source, data, [SOURCE_CHUNK]: true } : { source, data, release, [SOURCE_CHUNK]: true };
}

/** The end of the input `source`, perhaps with its error, or `stopped`. */
export function endChunk(source: string, error?: NodeJS.ErrnoException, stopped = false): SourceChunk {
  return { source, end: true, ...(error === undefined ? {} : { error }), ...(stopped ? { stopped: true as const } : {}), [SOURCE_CHUNK]: true };
}

/** Shown as the source of standard input in messages (`stdin:12: …`). */
export const STDIN = 'stdin';

const READ_SIZE = 1024 * 1024;

/** Options of a {@link ReadPool}. */
export interface ReadPoolOptions {
  /** The size of a buffer: the most one read reads. Default 1 MiB. */
  size?: number;
  /** How many released buffers (not of `own`) are kept for reuse. Default 4. */
  keep?: number;
  /** Fill a buffer when it is released, so that a test sees any use of its bytes after the release. */
  poison?: boolean;
  /** Buffers of its own, taken before any other and always kept (those shorter than `size` are left out). */
  own?: readonly Buffer[];
}

/**
 * Read buffers used again once released: a tool that reads a 2 GiB file holds
 * a few of them, rather than leaving two thousand behind for the collector
 * (which lets tens of MiB of dead buffers pile up before it frees them). A
 * buffer is taken for each read and given back by the chunk's `release`; when
 * none is free (the consumer holds them all), a new one is made, so reading
 * never waits on the pool.
 *
 * The pool may be given buffers of its own to start with (`own`, each
 * `size` bytes or more): the byte scan's read buffers, in its WebAssembly memory,
 * where what is read is scanned without being copied there (see
 * ByteScan.readBuffers). They are taken before any other, and always kept.
 */
export class ReadPool {
  readonly size: number;
  private readonly keep: number;
  private readonly poison: boolean;
  private readonly free: Buffer[] = [];
  private readonly ownFree: Buffer[];
  private readonly own: ReadonlySet<Buffer>;

  constructor({ size = READ_SIZE, keep = 4, poison = false, own = [] }: ReadPoolOptions = {}) {
    this.size = size;
    this.keep = keep;
    this.poison = poison;
    this.ownFree = own.filter((buf) => buf.length >= size).map((buf) => buf.subarray(0, size));
    this.own = new Set(this.ownFree);
  }

  take(): Buffer {
    return this.ownFree.pop() ?? this.free.pop() ?? Buffer.allocUnsafeSlow(this.size);
  }

  give(buf: Buffer): void {
    if (this.poison) buf.fill(0xff);
    if (this.own.has(buf)) this.ownFree.push(buf);
    else if (this.free.length < this.keep) this.free.push(buf);
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
  /**
   * Standard input is this file descriptor, not yet opened as a stream: with
   * a pool, a pipe or socket on it is read into the pool's buffers too, and
   * the `stdin` stream is made only for anything else (a terminal).
   */
  stdinFd?: number;
  /**
   * The regular file the output is written to: an input that is that file,
   * with bytes left to read, ends at once with an error (see
   * inputIsOutput). Only inputs read with a pool are checked.
   */
  output?: FileIdentity;
}

/**
 * The chunks of every input in order. `stdin` is the stream read for `-`, or
 * a function that makes it, called only when it is read.
 * An error opening or reading a file ends that file's chunks (see
 * {@link SourceChunk}); reading goes on with the next file.
 * `stdinName` names standard input in messages. Once `stop` is aborted, the
 * input being read ends where it is and no other is read: the inputs end early,
 * as if they had ended there.
 */
export function openSources(
  files: readonly string[],
  stdin: NodeJS.ReadableStream | (() => NodeJS.ReadableStream),
  stdinName: string = STDIN,
  stop?: AbortSignal,
  options: SourceOptions = {},
): Readable {
  const names = files.length > 0 ? files : ['-'];
  const pool = options.pool;
  const stdinStream = (): NodeJS.ReadableStream => (typeof stdin === 'function' ? stdin() : stdin);
  // Read from its descriptor, a pipe is closed at its end: `-` named again reads nothing, as an ended stream would.
  let stdinClosed = false;
  async function* chunks(): AsyncGenerator<SourceChunk> {
    for (const name of names) {
      if (stop?.aborted) return;
      const source = name === '-' ? stdinName : name;
      // The first error of this input, given with its end.
      const failure: { error?: NodeJS.ErrnoException } = {};
      const onError = (_source: string, error: NodeJS.ErrnoException): void => {
        failure.error ??= error;
      };
      // `stopped`: the stop ended the reading of this input before its end.
      const end = (stopped = false): SourceChunk => endChunk(source, failure.error, stopped);
      let fd: number | undefined;
      if (name === '-' && stdinClosed) {
        yield end();
        continue;
      }
      if (pool !== undefined) {
        const file = await openInput(name === '-' ? (options.stdinFd ?? (stdinStream() as { fd?: unknown }).fd) : name, source, onError);
        if (file === 'error') {
          yield end();
          continue;
        }
        if (file?.regular && options.output !== undefined && readsOutput(file, options.output)) {
          onError(source, inputIsOutput());
          if (file.owned) await closeFd(file.fd);
          yield end();
          continue;
        }
        if (file?.regular) {
          yield end(yield* pooledChunks(file, source, pool, onError, stop));
          continue;
        }
        // Standard input's pipe, or a named pipe (whose socket, reading it, closes it).
        const stdinPipe = name === '-' && options.stdinFd !== undefined;
        if (file?.pipe && (stdinPipe || file.owned)) {
          if (stdinPipe) stdinClosed = true;
          yield end(yield* socketChunks(file.fd, source, pool, onError, stop));
          continue;
        }
        // Open already (a named pipe opens once): read as a stream, which closes it.
        if (file?.owned) fd = file.fd;
      }
      const stream: NodeJS.ReadableStream =
        name === '-' ? stdinStream() : createReadStream(name, fd === undefined ? { highWaterMark: READ_SIZE } : { highWaterMark: READ_SIZE, fd });
      if (name === '-' && isDirectoryFd(stream)) {
        // Node reads a directory on file descriptor 0 as an empty stream: say what it is, as for a named one.
        onError(source, Object.assign(new Error('EISDIR: illegal operation on a directory, read'), { code: 'EISDIR' }));
        yield end();
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
      let stopped = false;
      try {
        for await (const data of stream) {
          if (stop?.aborted) {
            stopped = true;
            break;
          }
          yield dataChunk(source, typeof data === 'string' ? Buffer.from(data) : (data as Buffer));
        }
      } catch (error) {
        if (stop?.aborted) stopped = true;
        else {
          if (readError === null) throw error;
          onError(source, readError);
        }
      } finally {
        stop?.removeEventListener('abort', onStop);
      }
      yield end(stopped);
    }
  }
  return Readable.from(chunks(), { objectMode: true, highWaterMark: 4 });
}

/** An input opened to be read with a pool: `owned` when it was opened here (a named file), and is to be closed here. */
interface OpenInput {
  fd: number;
  owned: boolean;
  regular: boolean;
  /** The file's identity and size, when it is a regular file. */
  dev?: number;
  ino?: number;
  size?: number;
  /** A pipe or a socket. */
  pipe?: boolean;
}

/**
 * Opens an input to see whether it is a regular file, to be read with a pool:
 * a path, or a file descriptor (stdin redirected from a file, read on from
 * where it is). Undefined for a file descriptor that is not a regular file or
 * for no descriptor at all (read as a stream, which knows how to wait on
 * pipes and terminals); 'error' when a named file cannot be opened (reported).
 * `asFile`: a named pipe is opened as a file is (see NAMED_PIPE_FLAGS).
 */
async function openInput(
  what: unknown,
  source: string,
  onError: (source: string, error: NodeJS.ErrnoException) => void,
  asFile = false,
): Promise<OpenInput | 'error' | undefined> {
  if (typeof what === 'number') {
    try {
      const stat = fstatSync(what);
      if (stat.isFile()) return { fd: what, owned: false, regular: true, dev: stat.dev, ino: stat.ino, size: stat.size };
      if (stat.isFIFO() || stat.isSocket()) return { fd: what, owned: false, regular: false, pipe: true };
      return undefined;
    } catch {
      return undefined;
    }
  }
  if (typeof what !== 'string') return undefined;
  let fd: number;
  // (Looked for only where such a pipe is opened otherwise than a file.)
  const namedPipe = !asFile && NAMED_PIPE_FLAGS !== 'r' && isNamedPipe(what);
  try {
    fd = await openFd(what, namedPipe ? NAMED_PIPE_FLAGS : 'r');
  } catch (error) {
    onError(source, error as NodeJS.ErrnoException);
    return 'error';
  }
  let regular = false;
  let pipe = false;
  let identity: Pick<OpenInput, 'dev' | 'ino' | 'size'> = {};
  try {
    const stat = await fstatFd(fd);
    regular = stat.isFile();
    if (regular) identity = { dev: stat.dev, ino: stat.ino, size: stat.size };
    // A named pipe (`mkfifo`, or `<(command)`, /dev/fd/63): read as standard input's pipe is, so that a stop ends a read
    // that waits for the writer (a read stream's read, in libuv's thread pool, would hold the run until the writer wrote
    // or closed).
    pipe = stat.isFIFO() || stat.isSocket();
  } catch {
    // Not known to be a regular file: read as a stream, which reports what goes wrong.
  }
  if (namedPipe && !pipe) {
    // Replaced by another file since it was looked at: opened again as files are (a terminal's reads would not wait).
    await closeFd(fd);
    return openInput(what, source, onError, true);
  }
  return { fd, owned: true, regular, pipe, ...identity };
}

/**
 * How a named pipe is opened on Linux: at once, whether or not a process has
 * it open for writing. Its reads then wait for a writer on the event loop, as
 * standard input's pipe's do (see socketChunks): Linux tells a reader so
 * opened of no end of input until a writer has come and gone. Opened as a
 * file is, the open itself waits for a writer, in a thread of libuv's pool,
 * and a process with such an open pending cannot exit (Node waits for the
 * pool's threads as it exits): no signal but SIGKILL ended a tool given a
 * named pipe that no process opened for writing. Elsewhere (the BSDs and
 * macOS may report the end of input of a pipe with no writer at once) it is
 * opened as a file is.
 */
const NAMED_PIPE_FLAGS = process.platform === 'linux' && constants.O_NONBLOCK !== undefined ? constants.O_RDONLY | constants.O_NONBLOCK : 'r';

/** True when `path` names a named pipe (`mkfifo`; `<(command)`, /dev/fd/63, is a pipe too). */
function isNamedPipe(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFIFO() === true;
  } catch {
    return false;
  }
}

/**
 * True when the regular file `file` is `output`, with bytes left to read
 * after where its descriptor is: an empty file (`f > f` emptied it) reads
 * nothing back, as cat(1) has it.
 */
function readsOutput(file: OpenInput, output: FileIdentity): boolean {
  if (file.dev !== output.dev || file.ino !== output.ino) return false;
  const at = file.owned ? 0 : (descriptorOffset(file.fd) ?? 0);
  return (file.size ?? 0) > at;
}

/** How long, at most, a regular file is read without the event loop running (see pooledChunks). */
const TURN_MS = 10;

/**
 * The chunks of a regular file, read into the pool's buffers; each is released
 * by its consumer. A regular file is read with blocking reads, as cat(1) reads
 * it: the kernel reads ahead of a file read in order, so the disk is read
 * while a chunk is processed anyway, and a read of the page cache takes a
 * fraction of a millisecond. A read handed to libuv's thread pool instead
 * left the tool waiting on the event loop for its result (README, *What each
 * change bought*). The event loop still runs between two reads once
 * TURN_MS have passed since it last did: without that, chunks handed on
 * through promises alone would keep a signal from being seen until the end
 * of the file (a turn at every read cost 1–2% of a run). Returns true when
 * the stop ended the reading before the file's end.
 */
async function* pooledChunks(
  file: OpenInput,
  source: string,
  pool: ReadPool,
  onError: (source: string, error: NodeJS.ErrnoException) => void,
  stop?: AbortSignal,
): AsyncGenerator<SourceChunk, boolean> {
  try {
    let turn = Date.now();
    for (;;) {
      // A blocking read holds the event loop: it runs between two reads once in a while, so that a signal (SIGINT, stop) is seen soon.
      if (Date.now() - turn >= TURN_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        turn = Date.now();
      }
      if (stop?.aborted) return true;
      const buf = pool.take();
      let bytesRead: number;
      try {
        bytesRead = readSync(file.fd, buf, 0, buf.length, null);
      } catch (error) {
        pool.give(buf);
        onError(source, error as NodeJS.ErrnoException);
        return false;
      }
      if (bytesRead === 0) {
        pool.give(buf);
        return false;
      }
      yield dataChunk(source, buf.subarray(0, bytesRead), () => pool.give(buf));
    }
  } finally {
    if (file.owned) await closeFd(file.fd);
  }
}

/** How many bytes a pipe is read in at a time: its capacity on Linux, all one read can bring. */
const PIPE_READ_SIZE = 64 * 1024;

/**
 * The chunks of a pipe or socket, copied into the pool's buffers. Node reads
 * a pipe into a buffer of its own for each read, 64 KiB at most, and those
 * pile up as garbage the collector is in no hurry to free (30 MiB more
 * after 2 GiB). Here every read lands in one buffer, and its bytes are
 * copied into a pool buffer: handed over at once when the consumer is
 * waiting for them (a live view sees each read as it comes), or gathered up
 * to the pool's buffer size while it is busy. Reading pauses while two full
 * buffers wait. Returns true when the stop ended the reading before the
 * input's end.
 */
async function* socketChunks(
  fd: number,
  source: string,
  pool: ReadPool,
  onError: (source: string, error: NodeJS.ErrnoException) => void,
  stop?: AbortSignal,
): AsyncGenerator<SourceChunk, boolean> {
  const ready: SourceChunk[] = [];
  let buf: Buffer | null = null;
  let filled = 0;
  let ended = false;
  let failure: NodeJS.ErrnoException | null = null;
  let wake: (() => void) | null = null;
  const notify = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  const handOver = (): void => {
    if (buf === null || filled === 0) return;
    const full = buf;
    ready.push(dataChunk(source, full.subarray(0, filled), () => pool.give(full)));
    buf = null;
    filled = 0;
  };
  // `onread` is a constructor option since Node 12; @types/node lists it only for connect().
  const socket = new Socket({
    fd,
    readable: true,
    writable: false,
    onread: {
      buffer: Buffer.allocUnsafeSlow(PIPE_READ_SIZE),
      callback: (n: number, data: Uint8Array): boolean => {
        let from = 0;
        while (from < n) {
          if (buf === null) buf = pool.take();
          const count = Math.min(n - from, buf.length - filled);
          buf.set(data.subarray(from, from + count), filled);
          filled += count;
          from += count;
          if (filled === buf.length) handOver();
        }
        if (wake !== null) {
          handOver();
          notify();
        }
        // The consumer is behind by two full buffers: wait for it.
        return ready.length < 2;
      },
    },
  } as ConstructorParameters<typeof Socket>[0]);
  // Flowing, so that the end of the input is seen ('end' waits for a reader).
  socket.resume();
  socket.on('end', () => {
    ended = true;
    handOver();
    notify();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    failure ??= error;
    ended = true;
    notify();
  });
  const onStop = (): void => {
    ended = true;
    notify();
  };
  stop?.addEventListener('abort', onStop, { once: true });
  try {
    for (;;) {
      if (stop?.aborted) return true;
      const next = ready.shift();
      if (next !== undefined) {
        // Returning false stopped the reads; resume() starts them again (a no-op while they run).
        if (!ended) socket.resume();
        yield next;
        continue;
      }
      if (ended) {
        if (failure !== null) onError(source, failure);
        return false;
      }
      // Nothing ready: what has been gathered goes now, or with the next read.
      if (filled > 0) {
        handOver();
        continue;
      }
      socket.resume();
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    stop?.removeEventListener('abort', onStop);
    for (const chunk of ready) if ('release' in chunk) chunk.release?.();
    if (buf !== null) pool.give(buf);
    socket.destroy();
  }
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

/** The C library's words for the system errors a tool may meet (strerror, glibc), by code. */
const SYSTEM_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'No such file or directory',
  // As the tool sees it: the file is not its to read, whichever of the two the system gave.
  EACCES: 'Permission denied',
  EPERM: 'Permission denied',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  EMFILE: 'Too many open files',
  ENFILE: 'Too many open files in system',
  EIO: 'Input/output error',
  ENOSPC: 'No space left on device',
  EBADF: 'Bad file descriptor',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
  ENXIO: 'No such device or address',
  ENODEV: 'No such device',
  EFBIG: 'File too large',
  EROFS: 'Read-only file system',
  EDQUOT: 'Disk quota exceeded',
  ETXTBSY: 'Text file busy',
  EBUSY: 'Device or resource busy',
  EINVAL: 'Invalid argument',
  EAGAIN: 'Resource temporarily unavailable',
  EINTR: 'Interrupted system call',
  ENOMEM: 'Cannot allocate memory',
  EOVERFLOW: 'Value too large for defined data type',
  ESPIPE: 'Illegal seek',
  ESTALE: 'Stale file handle',
  EFAULT: 'Bad address',
  EPIPE: 'Broken pipe',
  ECONNRESET: 'Connection reset by peer',
  ENOTCONN: 'Transport endpoint is not connected',
  ETIMEDOUT: 'Connection timed out',
  ENOTSUP: 'Operation not supported',
  EOPNOTSUPP: 'Operation not supported',
  ENOTSOCK: 'Socket operation on non-socket',
  EXDEV: 'Invalid cross-device link',
};

/**
 * A one-line description of a system error, like the C library's (`No such
 * file or directory`): its words, without Node's code, call and path
 * (`ELOOP: too many symbolic links encountered, open 'x'`), which the
 * message names already. An error of a code not listed gives the words
 * of Node's message, its first letter capitalised.
 */
export function describeError(error: NodeJS.ErrnoException): string {
  const known = error.code === undefined ? undefined : SYSTEM_ERRORS[error.code];
  if (known !== undefined) return known;
  const first = error.message.split('\n')[0] ?? String(error);
  const { code, syscall } = error;
  if (code === undefined || !first.startsWith(`${code}: `)) return first;
  const call = syscall === undefined ? -1 : first.indexOf(`, ${syscall}`, code.length);
  const words = first.slice(code.length + 2, call > code.length ? call : undefined);
  return words.length > 0 ? `${words[0]!.toUpperCase()}${words.slice(1)}` : first;
}
