/**
 * Opens the inputs named on the command line, in order, as one object stream
 * of chunks tagged with their source. `-` (or no file at all) is stdin. A file
 * that cannot be read is reported through `onError` and skipped, like cat(1).
 */
import { createReadStream, fstatSync } from 'node:fs';
import { Readable } from 'node:stream';

/** A chunk of one input, or the end of one input. */
export type SourceChunk = { source: string; data: Buffer } | { source: string; end: true };

/** Shown as the source of standard input in messages (`stdin:12: …`). */
export const STDIN = 'stdin';

const READ_SIZE = 1024 * 1024;

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
): Readable {
  const names = files.length > 0 ? files : ['-'];
  async function* chunks(): AsyncGenerator<SourceChunk> {
    for (const name of names) {
      if (stop?.aborted) return;
      const source = name === '-' ? stdinName : name;
      const stream: NodeJS.ReadableStream = name === '-' ? stdin : createReadStream(name, { highWaterMark: READ_SIZE });
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
