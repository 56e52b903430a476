/**
 * The last session's verdict, read from the end of a regular file.
 *
 * Only the last session matters to ndjson-result's default verdict, and in a
 * log it is at the end. Reading backwards, the last event names the session;
 * the verdict is that session's last result, or none when its `system/init`
 * (or the start of the file) comes first. Lines of other types are judged by
 * their first key alone, without parsing, once the byte scan has found each
 * one JSON object (see isJsonObject): a line cut short or broken after the
 * last result is the full read's to report, and a cut line makes a run go
 * on past its result.
 *
 * The reading is optimistic: anything it cannot judge with certainty (a line
 * that is not one clean event, such as noise, a truncated line, glued or
 * pretty-printed values, a last event without a session id, or an answer
 * the line before it goes on into, as an array's elements do) gives up, and
 * the caller reads the file from the start instead. So the answer is always
 * the one the full read gives; only the lines it never reaches go unchecked.
 */
import { read as readCallback } from 'node:fs';
import { promisify } from 'node:util';
import { eventType, isObject, isRunActivity, isSystemInit, sessionId, str } from '../events.js';
import type { AgentEvent } from '../events.js';
import { peekSession, peekType, typeIsCertain } from '../io/input.js';
import { nestedTooDeep } from '../io/json-bytes.js';
import { isJsonObject } from '../io/skim.js';

const read = promisify(readCallback);
/** The most read at a time. */
const CHUNK = 1 << 20;

/** A line found reading backwards: its bytes (without line end) and where it starts in the file. */
export interface FoundLine {
  raw: Buffer;
  offset: number;
  /** Only the end of the line, `raw`, was read (see linesFromEnd), from `offset`. */
  partial?: true;
}

/** What the backward reading found. */
export type SeekOutcome =
  | { kind: 'result'; session: string; line: FoundLine; event: AgentEvent }
  | { kind: 'none'; session: string; line: FoundLine };

/** How much {@link verdictFromEnd} reads at a time: `first`, then twice as much at each read, up to `most` bytes. */
export interface ReadSizes {
  first: number;
  most: number;
}

/**
 * How much is read at a time from the end: 64 KiB first, twice as much at
 * each read after, up to 1 MiB. A log's last line is most often its result,
 * a few KiB; a buffer is written in full by its read, and memory written for
 * the first time costs more than the read (2.6 ms a MiB on the machine of
 * the benchmark).
 */
const READ_SIZES: ReadSizes = { first: 1 << 16, most: CHUNK };

/**
 * Reads a file's lines from the end, one at a time, lazily. A line longer
 * than a read whose last byte but white space is not `}` is no event (an
 * array of events, as Claude Code's `--output-format json --verbose` writes
 * a run), which the caller would give up at, but only once it had read the
 * whole line backwards: only its end, as read, is found (`partial`), and
 * nothing more is read. So is every line longer than a read once
 * `ends.only` is set, by a caller that reads no more than a line's end:
 * as soon as the end read holds more than white space.
 */
async function* linesFromEnd(fd: number, size: number, sizes: ReadSizes, ends: { only: boolean } = { only: false }): AsyncGenerator<FoundLine> {
  let pos = size;
  let want = sizes.first;
  // Pieces of the line that began before the chunk read last, in file order.
  let tail: Buffer[] = [];
  while (pos > 0) {
    const start = Math.max(0, pos - want);
    want = Math.min(2 * want, sizes.most);
    const chunk = Buffer.allocUnsafe(pos - start);
    let got = 0;
    while (got < chunk.length) {
      const { bytesRead } = await read(fd, chunk, got, chunk.length - got, start + got);
      if (bytesRead === 0) throw new Error('file shrank while read');
      got += bytesRead;
    }
    let end = chunk.length;
    for (;;) {
      const nl = end === 0 ? -1 : chunk.lastIndexOf(10, end - 1);
      if (nl === -1) break;
      const piece = chunk.subarray(nl + 1, end);
      const raw = tail.length > 0 ? Buffer.concat([piece, ...tail]) : piece;
      tail = [];
      yield { raw, offset: start + nl + 1 };
      end = nl;
    }
    if (tail.length === 0 && start > 0 && !mayEndEvent(chunk, end)) {
      yield { raw: chunk.subarray(0, end), offset: start, partial: true };
      return;
    }
    // Only its end wanted, and read (more than white space): the line is not read further back.
    if (ends.only && start > 0 && !isBlank(chunk.subarray(0, end))) {
      yield { raw: Buffer.concat([chunk.subarray(0, end), ...tail]), offset: start, partial: true };
      return;
    }
    tail.unshift(chunk.subarray(0, end));
    pos = start;
  }
  if (tail.length > 0) yield { raw: Buffer.concat(tail), offset: 0 };
}

/** Parses a line that must be one clean event (glued values do not parse); undefined when it is not. */
function parseEvent(raw: Buffer): AgentEvent | undefined {
  // One nested too deep to read (see MAX_DEPTH) is the full read's to report.
  if (raw[0] !== 0x7b || nestedTooDeep(raw)) return undefined;
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return isObject(value) ? (value as AgentEvent) : undefined;
  } catch {
    return undefined;
  }
}

/** False when the last byte of `chunk[0, end)` but white space is there and is not `}`. */
function mayEndEvent(chunk: Buffer, end: number): boolean {
  let at = end - 1;
  while (at >= 0 && (chunk[at] === 0x20 || chunk[at] === 0x09 || chunk[at] === 0x0d || chunk[at] === 0x0a)) at--;
  return at < 0 || chunk[at] === 0x7d;
}

/**
 * True when the last byte of `raw` but white space is `,` or `[`: the line
 * goes on into the next, as the elements of an array written a line each do.
 */
function goesOn(raw: Buffer): boolean {
  let at = raw.length - 1;
  while (at >= 0 && (raw[at] === 0x20 || raw[at] === 0x09 || raw[at] === 0x0d)) at--;
  return raw[at] === 0x2c || raw[at] === 0x5b;
}

function isBlank(raw: Buffer): boolean {
  for (const b of raw) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}

/**
 * Finds the last session's verdict reading `fd` (a regular file of `size`
 * bytes) backwards; null when the file must be read from the start instead.
 * `sizes`: how much is read at a time (by default 64 KiB, then up to 1 MiB).
 */
export async function verdictFromEnd(fd: number, size: number, sizes: ReadSizes = READ_SIZES): Promise<SeekOutcome | null> {
  let session: string | undefined;
  let last: FoundLine | undefined;
  let first = true;
  // The session was at work after the line being read (a message, a tool call): a result found now is an earlier run's.
  let activity = false;
  const verdict = (line: FoundLine, event: AgentEvent): SeekOutcome =>
    activity ? { kind: 'none', session: session!, line: last! } : { kind: 'result', session: session!, line, event };
  // The outcome, found at a line: it stands once the line before it is seen not to go on into it.
  let decided: SeekOutcome | undefined;
  // Once it is, only the end of the line before counts: a long one is not read backwards whole.
  const ends = { only: false };
  const decide = (outcome: SeekOutcome): void => {
    decided = outcome;
    ends.only = true;
  };
  for await (const found of linesFromEnd(fd, size, sizes, ends)) {
    if (decided !== undefined) {
      if (isBlank(found.raw)) continue;
      // An array whose elements are written a line each (`[{…},`), never closed: the line found is one of them, and the
      // full read reads the array as cut short, its run with no result.
      return goesOn(found.raw) ? null : decided;
    }
    if (found.partial) return null;
    let raw = found.raw;
    if (raw.length > 0 && raw[raw.length - 1] === 0x0d) raw = raw.subarray(0, raw.length - 1);
    // A byte-order mark (a file's start, or one of files joined with cat): the full read skips it.
    if (raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) return null;
    const line = { raw, offset: found.offset };
    if (isBlank(raw)) {
      // A file that does not end with a newline may have been cut short: let the full read judge it.
      if (first && raw.length > 0) return null;
      first = false;
      continue;
    }
    first = false;
    if (session === undefined) {
      // The last event names the session.
      const event = parseEvent(raw);
      if (event === undefined) return null;
      const id = str(event, 'session_id');
      if (id === undefined) return null;
      session = id;
      last = line;
      if (event.type === 'result') {
        decide({ kind: 'result', session, line, event });
        continue;
      }
      if (isSystemInit(event)) {
        decide({ kind: 'none', session, line });
        continue;
      }
      activity = isRunActivity(eventType(event));
      continue;
    }
    // Each line passed is one JSON object: one cut short or broken is the full read's to judge.
    if (!isJsonObject(raw)) return null;
    // Glued values are several events in one line, and a later `type` key is the one JSON.parse keeps:
    // a line whose first key may not be its type is judged by parsing, as the input layer does.
    const firstKey = raw[raw.length - 1] === 0x7d ? peekType(raw) : undefined;
    const type = firstKey !== undefined && typeIsCertain(raw) ? firstKey : undefined;
    if (type === undefined) {
      // Not plainly an event: parse it, and give up when it is not one.
      const event = parseEvent(raw);
      if (event === undefined) return null;
      const kind = eventType(event);
      // Whose it is, an event without a session id says only to a reader from the start.
      if ((kind === 'result' || kind === 'system' || isRunActivity(kind)) && str(event, 'session_id') === undefined) return null;
      if (kind === 'result' && sessionId(event) === session) decide(verdict(line, event));
      else if (isSystemInit(event) && sessionId(event) === session) decide({ kind: 'none', session, line: last! });
      if (isRunActivity(kind) && sessionId(event) === session) activity = true;
      continue;
    }
    if (type !== 'result' && type !== 'system') {
      if (!activity && isRunActivity(type)) {
        const peeked = peekSession(raw);
        if (peeked === undefined) {
          const event = parseEvent(raw);
          const id = event === undefined ? undefined : str(event, 'session_id');
          if (id === undefined) return null;
          if (id === session) activity = true;
        } else if (peeked === session) activity = true;
      }
      continue;
    }
    const peeked = peekSession(raw);
    if (peeked !== undefined && peeked !== session) continue;
    const event = parseEvent(raw);
    if (event === undefined || str(event, 'session_id') === undefined) return null;
    if (sessionId(event) !== session) continue;
    if (type === 'result') decide(verdict(line, event));
    else if (isSystemInit(event)) decide({ kind: 'none', session, line: last! });
  }
  if (decided !== undefined) return decided;
  if (session === undefined || last === undefined) return null;
  return { kind: 'none', session, line: last };
}

/** The 1-based line number of a byte offset of `fd`, counting newlines before it. */
export async function lineNumberAt(fd: number, offset: number): Promise<number> {
  let line = 1;
  const buf = Buffer.allocUnsafe(CHUNK);
  for (let pos = 0; pos < offset; ) {
    const { bytesRead } = await read(fd, buf, 0, Math.min(CHUNK, offset - pos), pos);
    if (bytesRead === 0) break;
    for (let i = buf.indexOf(10, 0); i !== -1 && i < bytesRead; i = buf.indexOf(10, i + 1)) line++;
    pos += bytesRead;
  }
  return line;
}
