/**
 * The input layer as a stream, for programs that consume agent streams:
 * bytes in, one {@link EventRecord} object out per event.
 */
import { transform } from 'through2';
import type { Transform } from 'node:stream';
import { EventReader } from './input.js';
import type { EventRecord, InputProblem } from './input.js';
import { StrictError, failOnceRead } from './tool-stream.js';
import { callbackOptions, flagOption, sizeOption } from '../option-values.js';

/**
 * What {@link readEvents} returns: a Transform taking bytes and giving
 * {@link EventRecord} objects, with its listeners typed so (`'data'`,
 * `'problem'`). Its async iterator stays Node's, of `any`, as `pipeline()`
 * takes no stream that gives objects otherwise: name the records' type where
 * they are read (`async function* (records: AsyncIterable<EventRecord>)`).
 */
export interface EventStream extends Transform {
  on(event: 'data', listener: (record: EventRecord) => void): this;
  on(event: 'problem', listener: (problem: InputProblem) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
  once(event: 'data', listener: (record: EventRecord) => void): this;
  once(event: 'problem', listener: (problem: InputProblem) => void): this;
  once(event: string | symbol, listener: (...args: any[]) => void): this;
  addListener(event: 'data', listener: (record: EventRecord) => void): this;
  addListener(event: 'problem', listener: (problem: InputProblem) => void): this;
  addListener(event: string | symbol, listener: (...args: any[]) => void): this;
  prependListener(event: 'data', listener: (record: EventRecord) => void): this;
  prependListener(event: 'problem', listener: (problem: InputProblem) => void): this;
  prependListener(event: string | symbol, listener: (...args: any[]) => void): this;
}

/** Options of {@link readEvents}. */
export interface ReadEventsOptions {
  /** The input's name in records and problems. Default `stdin`. */
  source?: string;
  /** Fail the stream (with a `StrictError`) at the first line that is not an event. */
  strict?: boolean;
  /** The most bytes a line may hold (see ReaderOptions.maxLine): the stream fails with a `LineTooLongError` past it. Default 4 GiB. */
  maxLine?: number;
}

/**
 * Creates a Transform that reads an agent's stream (NDJSON, glued or
 * pretty-printed values, any chunking) and pushes one record per event:
 * `{event, raw, source, line}` (`raw` a copy: the writer may use its chunk
 * again). Lines that are not events are emitted as `'problem'` events on the
 * stream (and skipped), or fail it under `strict` (once the records of the
 * lines before it have been read, see failOnceRead). A problem is emitted once
 * the events of the lines before it are pushed: to a `'data'` listener, in
 * input order; an async iterator, which takes events as it pulls them, may
 * hear of a problem before it has pulled the events of the lines before it.
 *
 * @example
 *   createReadStream('run.ndjson').pipe(readEvents()).on('data', ({ event, line }) => …)
 */
export function readEvents(given: ReadEventsOptions = {}): EventStream {
  callbackOptions(given);
  const options: ReadEventsOptions = { ...given, strict: flagOption(given.strict, 'strict'), maxLine: sizeOption(given.maxLine, 'maxLine') };
  let records: EventRecord[] = [];
  let stream: Transform;
  const reader = new EventReader(
    {
      // The record's bytes are copied: the chunk they were read from is the writer's, which may use it again.
      record: (rec) => records.push({ event: rec.event, raw: Buffer.from(rec.raw), source: rec.source, line: rec.line }),
      problem: (p: InputProblem) => {
        if (options.strict) throw new StrictError(p);
        // The events of the lines before it go first.
        for (const rec of records) stream.push(rec);
        records = [];
        stream.emit('problem', p);
      },
    },
    { maxLine: options.maxLine },
  );
  reader.startSource(options.source ?? 'stdin');
  // Reads with `step`, then pushes what it found, even when it failed midway: the stream then fails once that is read.
  const readThen = (t: Transform, step: () => void, cb: (err?: Error | null) => void): void => {
    let failure: Error | null = null;
    try {
      step();
    } catch (error) {
      failure = error as Error;
    }
    for (const rec of records) t.push(rec);
    records = [];
    if (failure === null) cb();
    else failOnceRead(t, () => cb(failure));
  };
  stream = transform(
    { writableObjectMode: false, readableObjectMode: true },
    function (this: Transform, chunk: Buffer | string, _enc: BufferEncoding, cb: (err?: Error | null) => void) {
      readThen(this, () => reader.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk), cb);
    },
    function (this: Transform, cb: (err?: Error | null) => void) {
      readThen(this, () => reader.endSource(), cb);
    },
  ) as unknown as Transform;
  return stream as EventStream;
}
