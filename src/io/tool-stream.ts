/**
 * The Transform every tool is: chunks of input in, the tool's output bytes out.
 * It runs the shared {@link EventReader} and hands each event to the tool's
 * core; what the core emits while one chunk is read leaves as one buffer, so
 * a delta that arrives is written at once and big inputs cost one push per
 * chunk, not per event.
 */
import { transform } from 'through2';
import type { Transform } from 'node:stream';
import { EventReader, LineTooLongError, formatProblem } from './input.js';
import type { EventRecord, InputProblem } from './input.js';
import type { SourceChunk } from './sources.js';
import { SOURCE_CHUNK } from './sources.js';
import { callbackOptions, flagOption, sizeOption } from '../option-values.js';
import { STDIN } from './sources.js';

/** Emits output: text (UTF-8) or bytes. */
export type Emit = (data: string | Buffer) => void;

/** The pure part of a tool: events in, output out, small state. */
export interface ToolCore {
  /** One event of the input, in order. */
  record(rec: EventRecord, emit: Emit): void;
  /** A line that is not an event (already reported unless the core says otherwise). */
  problem?(p: InputProblem, emit: Emit): void;
  /** The end of one input source. */
  endSource?(source: string, emit: Emit): void;
  /** The end of all input. */
  end(emit: Emit): void;
  /**
   * The stream stops at a bad line under `strict`, or at a line too long to
   * hold (see LineTooLongError), {@link end} never to come:
   * output left open (a line of text begun) is closed, so that what was
   * written ends as a text file does, with a line end.
   */
  halt?(emit: Emit): void;
  /**
   * The line the output was in the middle of was ended outside the core (an
   * interjection, see ToolTransform.interject): the line end the core writes
   * next, if it comes at once, is that one (it is not written again), and
   * what it writes on otherwise starts a line of its own.
   */
  lineBroken?(): void;
  /**
   * Which event types the core reads beyond their type and session. Lines of
   * other types are handed over unparsed (their `event` parses on first use).
   * Without it, every line is parsed. Ignored under `strict`, which checks
   * every line.
   */
  needs?(type: string): boolean;
  /**
   * Which of the event types it reads may be skim-parsed: their large values
   * (file contents, command output) are parsed only when read, the events
   * read the same. Without it, none. Ignored under `strict`, which parses
   * every line in full.
   */
  skim?(type: string): boolean;
  /**
   * Which of the types it does not read (see {@link needs}) an event of
   * changes nothing but where its session was last seen, so that of a run
   * of such events of one session the core needs only the first and the
   * last (see ReaderOptions.passes): every type it says yes to must tell
   * the core the same, as a run may mix them. Without it, every event is handed
   * over.
   */
  passes?(type: string): boolean;
  /**
   * True when text deltas of one session in a row may be handed over as one
   * record, their texts joined (see ReaderOptions.joinDeltas): for a core
   * to which they mean no more than that text. Ignored under `strict`.
   */
  readonly joinsDeltas?: boolean;
  /**
   * True when a text delta changes nothing in the core but where its
   * session was last seen, whatever its type otherwise means to it: deltas
   * then pass as the types {@link passes} says yes to (see
   * ReaderOptions.passDeltas). Ignored under `strict`, and without `passes`.
   */
  readonly passesDeltas?: boolean;
  /**
   * Which of the types neither {@link needs} nor {@link passes} says yes to
   * change nothing in the core but where their session was last seen when
   * their line holds no tool block: such lines pass as the types {@link
   * passes} says yes to when their bytes show it (see
   * ReaderOptions.passesPlain). Ignored under `strict`, and without
   * `passes`.
   */
  passesPlain?(type: string): boolean;
  /**
   * True when the core copies out the lines of the types it does not read
   * (see {@link needs}): such a line is handed over only once checked as
   * strictly as `JSON.parse` checks it, and one that fails the check is
   * read in full first, so that the core is handed what a full parse finds
   * on it: the values glued on it, or nothing (it is reported). See
   * ReaderOptions.checkUnread.
   */
  readonly copiesUnread?: boolean;
}

/** Options shared by every tool stream. */
export interface ToolStreamOptions {
  /** Make the first line that is not an event an error (the stream fails with a {@link StrictError}). */
  strict?: boolean;
  /** Called for each line that is not an event. Default: none (the line is skipped). */
  onProblem?: (p: InputProblem) => void;
  /** The name of the input in messages when plain bytes are written. Default `stdin`. */
  source?: string;
  /**
   * Called when an input ends with an error (it could not be opened, or read
   * to its end: see SourceChunk), after the output of what was read before.
   */
  onSourceError?: (source: string, error: NodeJS.ErrnoException) => void;
  /** Called with each buffer of output the stream pushes, as it pushes it. */
  onOutput?: (data: Buffer, interjected: boolean) => void;
  /** The most bytes a line may hold (see ReaderOptions.maxLine): the stream fails with a LineTooLongError past it. Default 4 GiB. */
  maxLine?: number;
}

/** A tool's Transform. */
export type ToolTransform = Transform & {
  /**
   * Pushes the output made so far, even mid-chunk, then `text` (which may
   * be empty; bytes are pushed as they are); false (nothing pushed) once the
   * stream has ended or failed.
   * Where stdout and stderr are one place (`2>&1`), a warning about line 42
   * written this way stands after the output of lines 1 to 41, and before
   * that of line 43. `endsLine`: `text` starts by ending the line the
   * output was in the middle of, so the line end the output writes next, if
   * it comes at once, is that one, and is not written again (no blank line).
   * A `text` that does not end its line (a command's stderr, written as it
   * comes) is gone on with by the next `text`, but the output made after it
   * starts on a line of its own.
   */
  interject(text: string | Buffer, endsLine?: boolean): boolean;
};

/** The error a tool stream fails with under `strict`. */
export class StrictError extends Error {
  constructor(readonly problem: InputProblem) {
    super(formatProblem(problem));
    this.name = 'StrictError';
  }
}

/**
 * `out` without the line end it starts with (`\n`, or `\r\n`), after any
 * SGR sequences (colour) before it; null when nothing is left. Output that
 * does not start with one is returned as it is.
 */
function withoutLineEnd(out: Buffer): Buffer | null {
  let at = 0;
  // ESC [ parameters m
  while (out[at] === 0x1b && out[at + 1] === 0x5b) {
    let end = at + 2;
    while (end < out.length && ((out[end]! >= 0x30 && out[end]! <= 0x39) || out[end] === 0x3b)) end++;
    if (out[end] !== 0x6d) return out;
    at = end + 1;
  }
  const size = out[at] === 0x0a ? 1 : out[at] === 0x0d && out[at + 1] === 0x0a ? 2 : 0;
  if (size === 0) return out;
  const rest = at === 0 ? out.subarray(size) : Buffer.concat([out.subarray(0, at), out.subarray(at + size)]);
  return rest.length === 0 ? null : rest;
}

const LINE_END = Buffer.from('\n');

function isSourceChunk(chunk: unknown): chunk is SourceChunk {
  return typeof chunk === 'object' && chunk !== null && (chunk as Partial<SourceChunk>)[SOURCE_CHUNK] === true;
}

/**
 * A chunk a program wrote as the bytes it stands for: a Buffer as it is, a
 * Uint8Array (a `fetch` body's) over the same memory, a string in the
 * encoding it was written with (UTF-8 by default). Anything else is an
 * error at its write, as in a stream of bytes.
 */
function bytesOf(chunk: unknown, enc: BufferEncoding | 'buffer' | undefined): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (typeof chunk === 'string') return Buffer.from(chunk, enc !== undefined && enc !== 'buffer' && Buffer.isEncoding(enc) ? enc : 'utf8');
  throw new TypeError(`a tool stream takes bytes: a Buffer, a Uint8Array or a string, not ${chunk === null ? 'null' : Array.isArray(chunk) ? 'an array' : typeof chunk === 'object' ? 'an object' : typeof chunk}`);
}

/**
 * Calls `fail`, which fails `stream`, once what `stream` holds pushed has
 * been read: failing destroys the stream, and with it the output it holds
 * unread (an async iterator, or a pipe waiting for its destination to
 * drain, has not read it yet). At once when it holds none, or when nothing
 * reads it (no pipe, no `data` or `readable` listener, no iterator: nothing
 * would ever read it). A reader that pauses holds the failure back until
 * it reads on, as it holds back the writes.
 */
export function failOnceRead(stream: Transform, fail: () => void): void {
  if (stream.readableLength === 0 || stream.readableFlowing === null) {
    fail();
    return;
  }
  let failed = false;
  const read = stream.read;
  const failOnce = (): void => {
    if (failed) return;
    failed = true;
    stream.read = read;
    fail();
  };
  // Pipes, `data` listeners and iterators all take what a stream holds through its read(): once it holds nothing, it
  // fails, before the end that read has set to come (an `end` would tell the reader that all went well).
  stream.read = function (this: Transform, size?: number): unknown {
    const chunk: unknown = read.call(this, size);
    if (this.readableLength === 0) failOnce();
    return chunk;
  };
  // Nothing more is pushed: the readable side ends, so that a reader asking for more than is left (`read(n)`) is given
  // the rest. (A `readable` listener may read at once, inside this push: through the read above.)
  stream.push(null);
  // The stream may be failing inside a read() (its reader's read made it transform this chunk): that read, begun
  // before the one above was put in its place, may take all it holds. Its end comes a tick later, after this.
  process.nextTick(() => {
    if (stream.readableLength === 0) failOnce();
  });
}

/**
 * Wraps a core in a Transform. It accepts bytes (one input, named by
 * `options.source`) or {@link SourceChunk}s (several inputs, as `openSources`
 * makes them), and pushes Buffers.
 */
export function toolStream(core: ToolCore, given: ToolStreamOptions = {}): ToolTransform {
  // A flag of another shape (`strict: 'false'`, which is truthy) is refused, as the cores refuse theirs.
  callbackOptions(given);
  const options: ToolStreamOptions = { ...given, strict: flagOption(given.strict, 'strict'), maxLine: sizeOption(given.maxLine, 'maxLine') };
  let parts: Buffer[] = [];
  // Text emitted since the last bytes: joined, and encoded once (a delta is a few words; a chunk holds thousands).
  let text = '';
  const flushText = (): void => {
    if (text === '') return;
    parts.push(Buffer.from(text, 'utf8'));
    text = '';
  };
  const emit: Emit = (data) => {
    if (typeof data === 'string') {
      text += data;
      return;
    }
    flushText();
    parts.push(data);
  };
  const reader = new EventReader(
    {
      record: (rec) => core.record(rec, emit),
      problem: (p) => {
        options.onProblem?.(p);
        if (options.strict) throw new StrictError(p);
        core.problem?.(p, emit);
      },
    },
    {
      needs: options.strict || !core.needs ? undefined : (type) => core.needs!(type),
      skim: options.strict || !core.skim ? undefined : (type) => core.skim!(type),
      passes: options.strict || !core.passes ? undefined : (type) => core.passes!(type),
      joinDeltas: !options.strict && core.joinsDeltas === true,
      passDeltas: !options.strict && core.passesDeltas === true,
      passesPlain: options.strict || !core.passesPlain ? undefined : (type) => core.passesPlain!(type),
      checkUnread: !options.strict && core.copiesUnread === true,
      // A core keeps copies of what it keeps (retainRecord), or what it reads of it: lines read across chunks can share one buffer.
      reuseLines: true,
      maxLine: options.maxLine,
    },
  );
  let current: string | null = null;
  const endCurrent = (stopped = false): void => {
    if (current === null) return;
    reader.endSource(stopped);
    core.endSource?.(current, emit);
    current = null;
  };
  // The parts may point into memory read into again (a chunk released to its pool, the
  // reader's line buffer): the output always gets bytes of its own.
  const collect = (): Buffer | null => {
    if (parts.length === 0) {
      if (text === '') return null;
      // Only text: its encoding is already a buffer of its own.
      const out = Buffer.from(text, 'utf8');
      text = '';
      return out;
    }
    flushText();
    const out = Buffer.concat(parts);
    parts = [];
    return out;
  };
  // The line the output was in the middle of was ended for an interjection (see interject).
  let lineEnded = false;
  // The last bytes pushed were an interjection's that did not end their line; and an interjection is being pushed.
  let interjectionOpen = false;
  let interjecting = false;
  /** The output made so far, as it leaves the stream (told to `onOutput`). */
  const take = (): Buffer | null => {
    let out = collect();
    if (out !== null && lineEnded) {
      lineEnded = false;
      out = withoutLineEnd(out);
    }
    if (out !== null && interjectionOpen && !interjecting) {
      // Below the line an interjection left open: a line end the output starts with puts it there, or one is added.
      interjectionOpen = false;
      if (withoutLineEnd(out) === out) out = Buffer.concat([LINE_END, out]);
    }
    if (out) options.onOutput?.(out, interjecting);
    return out;
  };
  /** The output made before the stream failed with `error`: a line a strict stop left open is ended first (see ToolCore.halt). */
  const madeBefore = (error: unknown): Buffer | null => {
    if (error instanceof StrictError || error instanceof LineTooLongError) core.halt?.(emit);
    return take();
  };
  // Set once the stream's last output is pushed, or it failed: nothing may be pushed after.
  let over = false;
  const stream = transform(
    { writableObjectMode: true, readableObjectMode: false },
    function (this: Transform, chunk: unknown, enc: BufferEncoding, cb: (err?: Error | null, data?: unknown) => void) {
      // A chunk read into a pooled buffer goes back to the pool once read: the reader and the core keep copies of what they keep.
      const release = isSourceChunk(chunk) && 'data' in chunk ? chunk.release : undefined;
      try {
        if (isSourceChunk(chunk)) {
          if ('end' in chunk) {
            if (current === null) current = chunk.source;
            if (chunk.error !== undefined) options.onSourceError?.(chunk.source, chunk.error);
            endCurrent(chunk.stopped === true);
          } else {
            if (current !== chunk.source) {
              endCurrent();
              current = chunk.source;
              reader.startSource(chunk.source);
            }
            reader.write(chunk.data);
          }
        } else {
          if (current === null) {
            current = options.source ?? STDIN;
            reader.startSource(current);
          }
          reader.write(bytesOf(chunk, enc));
        }
      } catch (error) {
        // What was made before the failing line is still written, and read before the stream fails.
        const out = madeBefore(error);
        release?.();
        if (out) this.push(out);
        over = true;
        failOnceRead(this, () => cb(error as Error));
        return;
      }
      const out = take();
      release?.();
      cb(null, out ?? undefined);
    },
    function (this: Transform, cb: (err?: Error | null) => void) {
      try {
        endCurrent();
        core.end(emit);
      } catch (error) {
        const out = madeBefore(error);
        if (out) this.push(out);
        over = true;
        failOnceRead(this, () => cb(error as Error));
        return;
      }
      const out = take();
      if (out) this.push(out);
      over = true;
      cb();
    },
  ) as unknown as Transform;
  return Object.assign(stream, {
    interject(more: string | Buffer, endsLine = false): boolean {
      if (over || stream.destroyed) return false;
      // What the core made before: its own output, the line end a line ended for an interjection owes among it.
      const before = take();
      if (before) stream.push(before);
      if (more.length > 0) {
        // The interjection's own text owes nothing: a line ended before it stays owed after it.
        const owed = lineEnded;
        lineEnded = false;
        interjecting = true;
        emit(more);
        const out = take();
        interjecting = false;
        if (out) stream.push(out);
        lineEnded = owed;
        interjectionOpen = (typeof more === 'string' ? more.charCodeAt(more.length - 1) : more[more.length - 1]) !== 0x0a;
      }
      if (endsLine) {
        lineEnded = true;
        core.lineBroken?.();
      }
      return true;
    },
  });
}
