/**
 * The input layer as a stream, for programs that consume agent streams:
 * bytes in, one {@link EventRecord} object out per event.
 */
import { transform } from 'through2';
import type { Transform } from 'node:stream';
import { EventReader } from './input.js';
import type { EventRecord, InputProblem } from './input.js';
import { StrictError } from './tool-stream.js';

/** Options of {@link readEvents}. */
export interface ReadEventsOptions {
  /** The input's name in records and problems. Default `stdin`. */
  source?: string;
  /** Fail the stream (with a `StrictError`) at the first line that is not an event. */
  strict?: boolean;
}

/**
 * Creates a Transform that reads an agent's stream (NDJSON, glued or
 * pretty-printed values, any chunking) and pushes one record per event:
 * `{event, raw, source, line}`. Lines that are not events are emitted as
 * `'problem'` events on the stream (and skipped), or fail it under `strict`.
 *
 * @example
 *   createReadStream('run.ndjson').pipe(readEvents()).on('data', ({ event, line }) => …)
 */
export function readEvents(options: ReadEventsOptions = {}): Transform {
  let records: EventRecord[] = [];
  let stream: Transform;
  const reader = new EventReader({
    record: (rec) => records.push(rec),
    problem: (p: InputProblem) => {
      if (options.strict) throw new StrictError(p);
      stream.emit('problem', p);
    },
  });
  reader.startSource(options.source ?? 'stdin');
  // Reads with `step`, then pushes what it found, even when it failed midway.
  const readThen = (t: Transform, step: () => void, cb: (err?: Error | null) => void): void => {
    let failure: Error | null = null;
    try {
      step();
    } catch (error) {
      failure = error as Error;
    }
    for (const rec of records) t.push(rec);
    records = [];
    cb(failure);
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
  return stream;
}
