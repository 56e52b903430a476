/**
 * The input layer: bytes in, events out, each with its origin (`file:line`) and
 * the raw bytes it was read from. Every quirk of real input lives here:
 *
 * - one event per line (the fast path: one `JSON.parse` per line), blank
 *   lines, CRLF line ends, a UTF-8 byte-order mark (at the start of any
 *   line: files joined with cat), lines of any length, chunks split
 *   anywhere (a line is only decoded once it is whole, so a multi-byte
 *   character split between chunks is never torn);
 * - values glued together (`}{`), pretty-printed over several lines, or with
 *   literal newlines inside strings: a line that fails the fast path and looks
 *   like JSON goes to stream-json's streaming tokenizer, which reads on across
 *   lines until the value closes, then hands back to the fast path;
 * - lines that are not JSON (`Update available: …`), JSON values that are not
 *   objects, and a line cut short (`truncated`: the input ends in it, or a
 *   line follows that cannot go on with it): reported as problems, and the reading
 *   goes on with the next line. Invalid UTF-8 is decoded with U+FFFD, never a
 *   crash.
 */
import { stringer } from 'stream-json/core/stringer.js';
import Assembler from 'stream-json/assembler.js';
import type { AgentEvent } from '../events.js';
import { EVENT_TYPES, eventType, FREQUENT_SHAPES, isObject, str } from '../events.js';
import { SKIM_THRESHOLD, isJsonObject, skimParse } from './skim.js';
import { compileShapes, matchShape, numberValue, parseShape, slotEnd, slotStart, slotValue, stringValue } from './shapes.js';
import type { CompiledShape } from './shapes.js';
import { bomLength, closingQuote, isDigit, isJsonSpace, literalAt, nestedTooDeep, objectMayFollow, sameBytes } from './json-bytes.js';
import { NONE, TOKEN_SLICE, tokenizeInSlices, tokenizer, tokensOf } from './json-tokens.js';
import type { Token, TokenFn } from './json-tokens.js';
import type { ByteScan } from './byte-scan.js';
import { PREFIX_PLAIN, WALK_IN_STRING, makeByteScan, placeAt, walkBytes, walkDepth, walkEscaped, walkInString } from './byte-scan.js';
import { RUN_START_WINDOW } from './byte-scan-layout.js';
import { exactJsonText } from '../json-text.js';
import { visibleCodes, visibleOneLine } from '../safe-text.js';
import { SlowLines } from './slow-lines.js';
import type { KeptLine } from './slow-lines.js';

/** One event read from the input. */
export interface EventRecord {
  /**
   * The parsed event (always a JSON object). On a record the reader did not
   * need to parse (see {@link ReaderOptions.needs}) it is parsed on first use.
   */
  readonly event: AgentEvent;
  /**
   * The event's `type` when the reader read it from the line's start
   * (`{"type":"…"`) without parsing the line; undefined otherwise. Use
   * {@link recordType} to read the type of any record.
   */
  readonly type?: string;
  /**
   * The event's bytes as read, without the line end (and without a leading
   * byte-order mark). For events read from glued or pretty-printed input, the
   * compact JSON text of the value.
   */
  readonly raw: Buffer;
  /** Where it came from: a file name, or `stdin`. */
  readonly source: string;
  /** The 1-based line the event starts on. */
  readonly line: number;
}

/** The type of a record's event ('' when it has none), without parsing when the reader could avoid it. */
export function recordType(rec: EventRecord): string {
  return rec.type ?? eventType(rec.event);
}

/** The `session_id` of a record's event, or undefined when it has none; read without parsing when the line allows it. */
export function recordSessionField(rec: EventRecord): string | undefined {
  if (rec instanceof SkimmedRecord && !rec.parsed) {
    const session = peekSession(rec.raw);
    if (session !== undefined) return session;
  }
  return str(rec.event, 'session_id');
}

/** The session of a record's event ('' when it has none), without parsing when the line allows it. */
export function recordSession(rec: EventRecord): string {
  return recordSessionField(rec) ?? '';
}

/** A record kept after the reader moved on: its own copy of the bytes, parsed again each time its event is read. */
class RetainedRecord implements EventRecord {
  constructor(
    readonly raw: Buffer,
    readonly source: string,
    readonly line: number,
    readonly type: string | undefined,
  ) {}

  get event(): AgentEvent {
    try {
      const value: unknown = JSON.parse(this.raw.toString('utf8'));
      if (isObject(value)) return value as AgentEvent;
    } catch {
      // A line already reported as not JSON when it was read.
    }
    return this.type === undefined ? {} : { type: this.type };
  }
}

/**
 * A copy of a record that is safe to keep after the reader moved on: its
 * bytes are copied out of the read buffer they point into (which would
 * otherwise stay in memory as a whole), and only the bytes are kept: the
 * event is parsed again when it is read, so a tool that keeps one record per
 * session (its result) holds the bytes of each, not their parsed values too.
 */
export function retainRecord(rec: EventRecord): EventRecord {
  return new RetainedRecord(ownBytes(rec.raw), rec.source, rec.line, rec.type);
}

/**
 * A copy of `bytes` in memory of its own. `Buffer.from` cuts a short copy
 * from Node's shared 8 KiB pool, and a copy kept holds its whole slab: a
 * tool keeping one short result per session held a slab for each (2.4 MB
 * over a 2 GiB log), scattered through malloc's heap, which could then not
 * shrink.
 */
function ownBytes(bytes: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}

const NO_BYTES = Buffer.alloc(0);

/**
 * Text deltas of one session in a row, read as one (see
 * ReaderOptions.joinDeltas): the event of the last, with the texts of all.
 * Its bytes are the compact JSON of that event, made when read.
 */
class JoinedDeltas implements EventRecord {
  private value: AgentEvent | undefined;
  private bytes: Buffer | undefined;
  private middleBytes: Buffer | undefined;
  constructor(
    private readonly shape: CompiledShape,
    /** The texts, joined. */
    public text: string,
    readonly session: string,
    /** The session id as the lines write it (quotes included), to compare the next line's with. */
    readonly sessionBytes: Buffer,
    public time: number,
    readonly source: string,
    public line: number,
  ) {}

  get type(): string {
    return 'assistant';
  }

  get event(): AgentEvent {
    return (this.value ??= this.shape.build([this.text, this.session, this.time]));
  }

  get raw(): Buffer {
    return (this.bytes ??= Buffer.from(JSON.stringify(this.event), 'utf8'));
  }

  /**
   * For the byte scan (see ByteScan.deltas): what a delta of this shape
   * starts with, up to its text's opening quote, and what follows its text
   * up to its time in this session; undefined for a shape of another form
   * than text, session, time and `}`.
   */
  get head(): Buffer | undefined {
    return DELTA_HEADS.get(this.shape);
  }

  middle(): Buffer {
    return (this.middleBytes ??= deltaMiddle(this.shape, this.sessionBytes));
  }
}

/**
 * A record that keeps only where an event was (its source, line and type):
 * for a tool that needs to say where a result was after it let the result go.
 * Its event is an empty one of the same type, and its bytes are empty.
 */
export function placeOf(rec: EventRecord): EventRecord {
  return placeRecord(rec.source, rec.line, rec.type ?? eventType(rec.event));
}

/** The record {@link placeOf} keeps of an event of `type` at `source:line`. */
export function placeRecord(source: string, line: number, type: string): EventRecord {
  // One empty buffer for every place kept: a long log keeps one per session.
  return { event: type ? { type } : {}, raw: NO_BYTES, source, line, type };
}

/**
 * True when a record's line is an event, as `JSON.parse` reads it: a line
 * handed over unparsed is parsed first, and one that is not an event after
 * all is reported then (see {@link recordBroken}). For a core about to let
 * such a line change more than where its session was last seen: open a
 * session, or start its run again after its result. A line judged by its
 * first key alone may hold a byte flipped in its middle; that must not make
 * a session, or a run without a result, that a full parse would not see.
 */
export function recordSound(rec: EventRecord): boolean {
  if (rec instanceof SkimmedRecord && !rec.parsed) void rec.event;
  return !recordBroken(rec);
}

/**
 * True when a record handed over unparsed turned out, once parsed, not to be
 * an event: it has been reported as a problem, and a tool that copies lines
 * through must not pass it on.
 */
export function recordBroken(rec: EventRecord): boolean {
  return rec instanceof SkimmedRecord && rec.failed;
}

/**
 * True when `raw`, the line of an event of `type` handed over unparsed, is
 * one JSON object as `JSON.parse` reads it: a line exactly of a frequent
 * shape (a delta of thinking) by the match, which checks its strings as
 * `JSON.parse` does; any other by the skim's scan of its bytes (see
 * skim.ts). False when it is not, or when the scan cannot vouch for it.
 */
function unreadLineChecked(type: string, raw: Buffer): boolean {
  const shapes = SHAPES.get(type);
  if (shapes !== undefined && matchShape(shapes, raw) !== undefined) return true;
  return isJsonObject(raw);
}

/** Options of an {@link EventReader}. */
export interface ReaderOptions {
  /**
   * Which event types the reader must parse at once. A line that starts with
   * `{"type":"T"` and ends with `}`, for a type T this says no to, is handed
   * over without being parsed (its `event` is parsed on first use): the fast
   * path of tools that need only some events. Without it, every line is
   * parsed.
   */
  needs?: (type: string) => boolean;
  /**
   * Which event types may be skim-parsed: a line of such a type (as its start
   * names it) of 4 KiB or more has its large values, strings and arrays of
   * 4 KiB or more (file contents, command output, search matches), parsed
   * only when they are read. The event reads exactly as after a full parse;
   * the line is still checked as strictly as `JSON.parse` checks it, and one
   * the check cannot vouch for is parsed in full. Like `raw`, and like the
   * records of `needs`, such an event reads from the chunks written to the
   * reader: do not reuse their memory while its values may still be read.
   * Without it, none.
   */
  skim?: (type: string) => boolean;
  /**
   * Which of the types `needs` says no to change nothing in the sink but
   * where their session was last seen: of a run of such lines of one
   * session, after the first, only the last is handed over (a line the
   * reader cannot judge by its bytes alone ends the run, as does a line
   * read across chunks). For a sink to which such a record says no more
   * than "the session is still going, here": the run's other lines would
   * only be overwritten. A run may mix the types it says yes to, so each
   * of them must tell the sink the same: a type that tells it more (the
   * agent at work, after a result) must not pass beside one that tells it
   * less (a wrapper's line), or a run that starts and ends with the latter
   * hides the former. Line numbers count every line. Without it, every
   * line is handed over.
   */
  passes?: (type: string) => boolean;
  /**
   * Assemble a line read across several chunks in buffers the reader reuses,
   * rather than in a new one per line: the records of such a line, like
   * those that point into a chunk, are then valid only until the write after
   * the one that read them returns. For a sink that copies what it keeps
   * (every tool's core does): lines of many MiB then cost no garbage.
   * Default false.
   */
  reuseLines?: boolean;
  /**
   * For a sink that copies the lines it does not read: a line to be handed
   * over unparsed (see `needs`) is first checked as strictly as `JSON.parse`
   * checks it, and one the check fails is read as any line the reader must
   * parse: values glued on it (`{…}42{…}`) are split, and a line that is not
   * JSON is reported. It lets no line by in a run (see `passes`).
   */
  checkUnread?: boolean;
  /**
   * Hand over text deltas of one session that follow one another (lines
   * exactly of a shape marked `delta` in FREQUENT_SHAPES, within one write)
   * as one record: the event of the last, its text the texts of all of them
   * joined, its line the last's. For a sink to which a run of deltas says no
   * more than their text does, taken together. Only deltas of a type `needs`
   * says yes to are joined (of any type with `skim` and no `needs`; a reader
   * with neither parses every line as it comes). Default false.
   */
  joinDeltas?: boolean;
  /**
   * With `passes`: text deltas (lines exactly of a shape marked `delta` in
   * FREQUENT_SHAPES) pass as the lines of a type `passes` says yes to do,
   * whatever `passes` says of their type: for a sink to which a delta says no
   * more than where its session was last seen (one that searches messages
   * for tool calls, which a delta never holds). Default false.
   */
  passDeltas?: boolean;
  /**
   * With `passes`: which of the types `needs` and `passes` say no to pass as
   * those `passes` says yes to, line by line, when the line is plain (see
   * {@link plainLine}): for a sink that reads such a line only for a tool
   * block (`"tool_use"`, `"tool_result"`, spelt with or without escapes),
   * which a plain line cannot hold. A line with a run's first event glued on
   * is not plain: it is read as any line the reader must parse, and the
   * event recovered (see RUN_START). Without it, none.
   */
  passesPlain?: (type: string) => boolean;
  /**
   * The most bytes a line may hold before it is ended: a line longer still
   * (`/dev/zero`, a writer that never ends its line) fails the write that
   * makes it so with a {@link LineTooLongError}, and the input is not read
   * further. Default (and at most) {@link MAX_LINE}, 4 GiB.
   */
  maxLine?: number;
}

/** The most bytes a line may hold: 4 GiB, the longest buffer Node 20 makes (see ReaderOptions.maxLine). */
export const MAX_LINE = 2 ** 32;

/**
 * The error a reader fails with when a line grows past
 * ReaderOptions.maxLine: it cannot be held, nor its end looked for without
 * losing what it may hold (a tool call glued on), so the input is read no
 * further.
 */
export class LineTooLongError extends Error {
  constructor(source: string, line: number, head: Buffer, max: number) {
    const size = max >= 2 ** 30 && max % 2 ** 30 === 0 ? `${max / 2 ** 30} GiB` : `${max} bytes`;
    super(`${formatProblem({ source, line, reason: 'line too long', excerpt: excerptOf(head), raw: head })} (more than ${size}: the rest of the input is not read)`);
    this.name = 'LineTooLongError';
  }
}

const TOOL_KEY = Buffer.from('"tool_');
/** The bytes `\u`, the start of an escape that may spell any character. */
export const ESCAPE_U: Buffer = Buffer.from('\\u');

/**
 * True when `raw` holds none of `"tool_` (where a tool block's type may be:
 * `"tool_use"`, `"tool_result"`), `\u` (an escape that may spell one) and
 * {@link RUN_START} (a run's first event glued on). The byte scan's `plain`
 * is the same test.
 */
export function plainLine(raw: Buffer): boolean {
  // Each searched for by a byte rare in messages: `_`, the backslash, `{`.
  return !holdsBytes(raw, TOOL_KEY, 5) && !holdsBytes(raw, ESCAPE_U, 0) && !holdsBytes(raw, RUN_START, 0);
}

/**
 * True when `raw` holds the bytes of `needle`. Each place where the needle's
 * byte at `pivot` occurs (choose one that is rare in the input) is found with
 * a byte search, and the rest compared around it: on lines of a few hundred
 * bytes, several times cheaper than Buffer#includes, which sets up a search
 * per call.
 */
export function holdsBytes(raw: Buffer, needle: Buffer, pivot: number): boolean {
  const byte = needle[pivot]!;
  const last = raw.length - needle.length + pivot;
  for (let at = raw.indexOf(byte, pivot); at !== -1 && at <= last; at = raw.indexOf(byte, at + 1)) {
    if (sameBytes(raw, at - pivot, needle)) return true;
  }
  return false;
}

/**
 * True when the `}` at `raw[close]` is followed by `{`, with only spaces,
 * tabs and carriage returns between; or by those and what starts another
 * value (`[`, `"`, `-`, a digit, `true`, `false`, `null`), which in one
 * object can follow a `}` only inside a string; or by a byte-order mark's
 * first byte (files joined with cat, the first without its last newline).
 */
function gluedAt(raw: Buffer, close: number): boolean {
  const n = raw.length;
  for (let i = close + 1; i < n; i++) {
    const b = raw[i]!;
    if (b === 0x7b || b === 0xef) return true;
    if (b === 0x20 || b === 0x09 || b === 0x0d) continue;
    if (i === close + 1) return false;
    if (b === 0x5b || b === 0x22 || b === 0x2d || isDigit(b)) return true;
    return literalAt(raw, i) > 0;
  }
  return false;
}

// `"type"`, and the start of an escape that may spell one of its letters (`\u0065`, `\u0070`, `\u0074`, `\u0079`).
const TYPE_KEY = Buffer.from('"type"');
const ESCAPE_U00 = Buffer.from('\\u00');

// What a place the byte scan finds (see ByteScan.places) turns out to be.
const NOTHING = 0;
const GLUED = 1;
const ESCAPE = 2;
const KEY = 3;

/**
 * What is at `buf[at]`, a place (see placeAt): values glued together, an
 * escape `\u006…` or `\u007…`, `"type"`, or nothing of these. A `{"t` is
 * an event glued on a value when the byte before it cannot come before an
 * object (`42{"type"…`), or is white space not after `:`, `[` or `,`
 * (`42 {"type"…`, not `: {"type"…`).
 */
function whatIsAt(buf: Buffer, at: number): number {
  const b = buf[at];
  if (b === 0x7b) return objectMayFollow(buf[lastNonSpace(buf, at)]) ? NOTHING : GLUED;
  if (b === 0x7d) return gluedAt(buf, at) ? GLUED : NOTHING;
  if (b === 0x22) return sameBytes(buf, at, TYPE_KEY) ? KEY : NOTHING;
  const digit = buf[at + 4];
  return b === 0x5c && sameBytes(buf, at, ESCAPE_U00) && (digit === 0x36 || digit === 0x37) ? ESCAPE : NOTHING;
}

let placesScan: ByteScan | null | undefined;
/** The line scan whose bytes are in {@link placesScan}. */
let placesScanOwner: LineScan | null = null;

/**
 * True when `text` (no JSON value) starts with one, not an object nor an
 * array, followed by an object (`42 {…}`, `"x"{…}`): values glued together,
 * which the slow path reads one by one.
 */
function scalarBeforeObject(text: string): boolean {
  const brace = text.indexOf('{');
  if (brace <= 0) return false;
  try {
    JSON.parse(text.slice(0, brace));
    return true;
  } catch {
    return false;
  }
}

/**
 * The line `raw`, which the slow path reads from where it left the line
 * before (at `depth`, in a string or not), as text, with each byte-order
 * mark that follows an object or an array (outside them all: files joined
 * with cat, the first without its last newline) made spaces, as one at a
 * line's start is left out; one anywhere else (in a value, after a number)
 * is left for the tokenizer to refuse, as JSON.parse does.
 */
function withoutMarksBetween(raw: Buffer, depth: number, inString: boolean): string {
  let at = raw.indexOf(BYTE_ORDER_MARK);
  if (at === -1) return raw.toString('utf8');
  const out = Buffer.from(raw);
  let state = (depth << 2) | (inString ? 2 : 0);
  let from = 0;
  while (at !== -1) {
    state = walkBytes(raw, from, at, state);
    if (walkDepth(state) === 0 && !walkInString(state) && !walkEscaped(state) && afterClose(raw, at)) out.fill(0x20, at, at + BYTE_ORDER_MARK.length);
    from = at;
    at = raw.indexOf(BYTE_ORDER_MARK, at + BYTE_ORDER_MARK.length);
  }
  return out.toString('utf8');
}

const BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);

/** True when what comes before `raw[at]`, past JSON's white space, closes an object or an array (`}`, `]`). */
function afterClose(raw: Buffer, at: number): boolean {
  const i = lastNonSpace(raw, at);
  return raw[i] === 0x7d || raw[i] === 0x5d;
}

/** How many read buffers {@link placesScan} has: as many as a ReadPool keeps in use on a long file. */
const READ_BUFFER_COUNT = 4;

/** The byte scan chunks are searched in for places, made on first use (the skim has its own, which it loads a line at a time); undefined where there is none. */
function placesBytes(): ByteScan | undefined {
  if (placesScan === undefined) placesScan = makeByteScan(READ_BUFFER_COUNT) ?? null;
  return placesScan ?? undefined;
}

/**
 * The read buffers of the byte scan a reader searches its chunks in (see
 * ByteScan.readBuffers), for a ReadPool: a chunk read into one is scanned
 * where it is, not copied into the scan's memory first. The same buffers at
 * every call: give them to one pool at a time. None where there is no byte
 * scan.
 */
export function scanReadBuffers(): readonly Buffer[] {
  return placesBytes()?.readBuffers ?? [];
}

/**
 * Whether the first key of an object line names its event's type for
 * certain, asked of the lines of one chunk (or of one line read across
 * chunks): the places that may say otherwise are searched for in the line
 * asked about, by the byte scan (see ByteScan.places), which has the chunk
 * in its memory from the first question (only the lines a reader skips are
 * asked about: the others are never searched). It does not when the line may
 * be values glued together (`}{`, with or without spaces between, `42{"type"`), or when a
 * later key at the object's top level may spell `type`: JSON.parse keeps the
 * last of keys that repeat. A `"type"` found after `{`, `[` or `:` is not a
 * key of the line's object (see {@link mayBeLineKey}); one after a comma is
 * judged by following the line's structure from its start up to it (a nested
 * one, in a tool call's arguments or a message's content, is not the
 * event's). An escape that may spell a letter of the name is never vouched
 * for.
 */
class LineScan {
  /** The places of the line asked about last. */
  private readonly places: number[] = [];
  /** After {@link run}: where the last line it let by starts, and where the line after them does. */
  lastRun = -1;
  nextRun = 0;

  /** `scanBytes` false searches byte by byte even where the byte scan is available (for tests: both must agree). */
  constructor(
    private readonly buf: Buffer,
    private readonly scanBytes = true,
  ) {}

  /** True when the first key of the object line `buf[start, end)` (which starts `{"type":"`) is certainly its event's type. */
  typeIsCertain(start: number, end: number): boolean {
    const from = start + TYPE_PREFIX.length;
    // The line's closing `}` is not looked at: nothing follows it to be glued.
    const last = end - 1;
    const places = this.places;
    places.length = 0;
    const bytes = this.bytes();
    if (bytes !== undefined) bytes.places(from, last, places);
    else for (let at = from; at < last; at++) if (placeAt(this.buf, at)) places.push(at);
    return places.length === 0 || this.judge(start, last);
  }

  /** Judges the places found in `buf[start, last)`. */
  private judge(start: number, last: number): boolean {
    const buf = this.buf;
    const bytes = this.bytes();
    // The structure followed so far, up to `i` (see walkBytes).
    let i = start;
    let state = 0;
    for (const at of this.places) {
      const what = whatIsAt(buf, at);
      if (what === GLUED || what === ESCAPE) return false;
      if (what === NOTHING || !mayBeLineKey(buf, start, at)) continue;
      state = bytes === undefined ? walkBytes(buf, i, at, state) : bytes.walk(i, at, state);
      i = at;
      // Its quote, not escaped, opens a string in the object itself: perhaps a key.
      if (!walkEscaped(state) && !walkInString(state) && walkDepth(state) <= 1) return false;
    }
    return true;
  }

  /**
   * How many lines from `from` the byte scan lets by in a run (see
   * ByteScan.run): 0 where there is none. {@link lastRun} and {@link
   * nextRun} say where they end.
   */
  run(from: number, prefixes: Buffer, tail: Buffer): number {
    const bytes = this.bytes();
    if (bytes === undefined) return 0;
    const count = bytes.run(from, prefixes, tail);
    this.lastRun = bytes.lastRun;
    this.nextRun = bytes.nextRun;
    return count;
  }

  /** After {@link deltas}: where the last of them starts, where the line after them does, where the time of the last is. */
  lastDelta = -1;
  nextDelta = 0;
  timeStart = 0;
  timeEnd = 0;

  /** Whether the line `buf[start, end)` holds a run's first event glued on it (see holdsRunStart): by the byte scan where there is one. */
  holdsRunStart(start: number, end: number): boolean {
    const bytes = this.bytes();
    return bytes !== undefined ? bytes.holdsRunStart(start, end) : holdsRunStart(this.buf.subarray(start, end));
  }

  /** How many lines from `from` the byte scan reads as deltas (see ByteScan.deltas): 0 where there is none. */
  deltas(from: number, head: Buffer, middle: Buffer, texts?: number[]): number {
    const bytes = this.bytes();
    if (bytes === undefined) return 0;
    const count = bytes.deltas(from, head, middle, texts);
    this.lastDelta = bytes.lastDelta;
    this.nextDelta = bytes.nextDelta;
    this.timeStart = bytes.timeStart;
    this.timeEnd = bytes.timeEnd;
    return count;
  }

  /** The byte scan, with this buffer's bytes in it; undefined where there is none. */
  private bytes(): ByteScan | undefined {
    const bytes = this.scanBytes ? placesBytes() : undefined;
    if (bytes !== undefined && placesScanOwner !== this) {
      bytes.load(this.buf);
      placesScanOwner = this;
    }
    return bytes;
  }
}

/**
 * True unless the `"type"` at `buf[at]` follows `{`, `[` or `:` (spaces
 * aside) after the line's first byte: then, in a valid line, it is the first
 * key of a nested object, an element of an array or a value, never a key of
 * the line's object. (Were that byte inside a string, the quote at `at` would
 * close the string, and `type"` after a string is not JSON.) A line that is
 * not JSON is judged by its first key whatever this says.
 */
function mayBeLineKey(buf: Buffer, start: number, at: number): boolean {
  let k = at - 1;
  while (k > start && isJsonSpace(buf[k]!)) k--;
  const b = buf[k];
  return k === start || (b !== 0x7b && b !== 0x5b && b !== 0x3a);
}

/**
 * True when the first key of an object line names its event's type for
 * certain, as {@link peekType} reads it: the line is not values glued together,
 * and no later key of the object may spell `type`. `scanBytes` false searches
 * byte by byte even where the byte scan is available (for tests).
 */
export function typeIsCertain(raw: Buffer, scanBytes = true): boolean {
  return new LineScan(raw, scanBytes).typeIsCertain(0, raw.length);
}

// `{"type":"` as bytes.
const TYPE_PREFIX = Buffer.from('{"type":"');

/**
 * How a run's first event starts: its `init`, or the hook lines Claude Code
 * writes before it. Past a line's first byte, it may be the first line of
 * the next run glued on the last line of a run cut short (an agent killed
 * mid-write, the next run appended to the same log): such a line is read as
 * the cut line and that event (see {@link gluedRunStart}). A line the
 * reader would hand over unparsed, or let by unread, that holds it (within
 * RUN_START_WINDOW of its end) is parsed in full first: let by in a run or
 * one at a time alike (the byte scan's `run` searches each line of a run so),
 * so that a run that died is not hidden by the one glued on it, and what a
 * line reads as does not hang on where a write of the input ended.
 */
const RUN_START = Buffer.from('{"type":"system"');

/** Lines up to this long are searched for {@link RUN_START} a `{` at a time; longer ones by Buffer#indexOf. */
const SHORT_LINE = 1024;

/** True when `raw` holds {@link RUN_START} past its first byte, within {@link RUN_START_WINDOW} of its end. */
export function holdsRunStart(raw: Buffer): boolean {
  const n = raw.length;
  if (n > SHORT_LINE) return raw.subarray(Math.max(1, n - RUN_START_WINDOW)).indexOf(RUN_START) !== -1;
  // Each `{` found with a byte search (a few to a line), the rest compared there: no search set up, nothing made.
  const last = n - RUN_START.length;
  for (let at = raw.indexOf(0x7b, 1); at !== -1 && at <= last; at = raw.indexOf(0x7b, at + 1)) if (sameBytes(raw, at, RUN_START)) return true;
  return false;
}

/**
 * Where the first event of a run starts on the line `raw` that is not JSON:
 * the last {@link RUN_START} past its first byte, within
 * {@link RUN_START_WINDOW} of its end, when what follows it to the line's end
 * is one JSON object, a `system` event as `JSON.parse` reads it (a later
 * `type` key would make it another); -1 when there is none.
 */
function gluedRunStart(raw: Buffer): number {
  const at = raw.lastIndexOf(RUN_START);
  if (at <= 0 || at < raw.length - RUN_START_WINDOW) return -1;
  try {
    const value: unknown = JSON.parse(raw.toString('utf8', at));
    return isObject(value) && value.type === 'system' ? at : -1;
  } catch {
    return -1;
  }
}

/**
 * Where what a terminal shows of the line `raw`, which is not JSON, starts,
 * when that is one JSON object: after the line's last return to its start
 * (a carriage return, `ESC[G` or `ESC[1G`, or an erasure of the line up to
 * the cursor or whole, `ESC[1K`, `ESC[2K`), and the control sequences right
 * after it (`ESC[K`, `ESC[?25h`, colours, `ESC(B`): an event written over
 * the spinner or progress line before it, `⠋ Working…\r\x1b[K{"type":…}`,
 * which a terminal shows as the event alone. Only on a line that does not
 * start as a JSON value: one that does is an event broken or cut short, and
 * is judged as one (tools that read a line of its type by its first key
 * alone do not look inside it). -1 when there is none.
 */
function overwrittenBy(raw: Buffer): number {
  const first = spaceEnd(raw, bomLength(raw, raw.length));
  if (first === raw.length || raw[first] === 0x7b || raw[first] === 0x5b) return -1;
  // The white space a line may end with (`\r\r`) is no return: the event comes before it.
  let end = raw.length;
  while (end > first && isJsonSpace(raw[end - 1]!)) end--;
  if (raw[end - 1] !== 0x7d) return -1;
  // Only the text after the last carriage return can hold the last return.
  const cr = raw.lastIndexOf(0x0d, end - 1);
  const from = cr === -1 ? 0 : cr;
  if (cr === -1 && raw.indexOf(0x1b) === -1) return -1;
  const text = raw.toString('latin1', from, end);
  let at = -1;
  RETURN.lastIndex = 0;
  for (let m = RETURN.exec(text); m !== null; m = RETURN.exec(text)) at = m.index + m[0].length;
  if (at === -1) return -1;
  CONTROLS.lastIndex = at;
  if (CONTROLS.exec(text) !== null) at = CONTROLS.lastIndex;
  at += from;
  if (raw[at] !== 0x7b) return -1;
  try {
    return isObject(JSON.parse(raw.toString('utf8', at))) ? at : -1;
  } catch {
    return -1;
  }
}

/** A return to the line's start (see overwrittenBy). */
const RETURN = /\r|\x1b\[[01]?G|\x1b\[[12]K/g;
/** Control sequences right after it: CSI sequences, a character set chosen (`ESC(B`), the cursor saved or restored, returns. */
const CONTROLS = /(?:\r|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()*+][ -~]|\x1b[78=>])+/y;

// The types of the stream, as strings made once: a known name costs no allocation.
const KNOWN_TYPES = EVENT_TYPES.map((name) => ({
  name,
  bytes: Buffer.from(name),
}));

/**
 * The type named by a line's first key, when the line starts exactly with
 * `{"type":"` and the name is plain ASCII without escapes: in a valid JSON
 * object line that first key is certainly the top-level `type`. The line is
 * `buf[start, end)` (all of `buf` by default).
 */
export function peekType(buf: Buffer, start = 0, end = buf.length): string | undefined {
  if (end - start < 12) return undefined;
  if (!sameBytes(buf, start, TYPE_PREFIX)) return undefined;
  // Plain bytes that names are made of; a quote ends the name, anything else means no certainty.
  const from = start + 9;
  let at = from;
  for (; at < end && at < from + 64; at++) {
    const b = buf[at]!;
    if (b === 0x22) break;
    if (b < 0x20 || b >= 0x7f || b === 0x5c) return undefined;
  }
  if (at >= end - 1 || buf[at] !== 0x22) return undefined;
  const after = buf[at + 1];
  if (after !== 0x2c && after !== 0x7d) return undefined;
  const size = at - from;
  for (const known of KNOWN_TYPES) if (known.bytes.length === size && sameBytes(buf, from, known.bytes)) return known.name;
  return buf.toString('latin1', from, at);
}

// A run of top-level scalar members closing the object: `,"session_id":"…"` then `,"k":scalar`… then `}`.
// With no brackets or backslashes in it, every quote in such a suffix of a valid JSON object is a
// delimiter, so the key it names is certainly a member of the top-level object.
const SESSION_ID = Buffer.from('session_id');
const MAX_MEMBERS = 16;
let lastSessionBytes: Buffer = Buffer.alloc(0);
let lastSessionId = '';

/** A byte of a plain string: printable ASCII, no quote, no backslash. */
function isPlain(b: number): boolean {
  return b >= 0x20 && b <= 0x7e && b !== 0x22 && b !== 0x5c;
}

/** A byte of a number or of `true`, `false`, `null`. */
function isScalarByte(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7a) || b === 0x2e || b === 0x2b || b === 0x2d || b === 0x45;
}

/**
 * True when the string value that starts at `raw[open]` (its opening quote) is
 * the value of a `"session_id"` key that follows a `,` or the object's `{`
 * (the line starting at `start`).
 */
function isSessionKey(raw: Buffer, start: number, open: number): boolean {
  const quote = open - SESSION_ID.length - 3;
  if (quote < start + 1 || raw[open - 1] !== 0x3a || raw[open - 2] !== 0x22 || raw[quote] !== 0x22) return false;
  const before = raw[quote - 1];
  return (before === 0x2c || before === 0x7b) && sameBytes(raw, quote + 1, SESSION_ID);
}

const SESSION_KEY = Buffer.from('"session_id"');

/**
 * The session a line cut short names, when it got that far: the value of a
 * `"session_id"` key of the line's object itself (found by following the
 * line's structure from its start, so not one nested in a value), a string
 * of plain bytes, closed before the cut. Undefined otherwise.
 */
export function tornSession(raw: Buffer): string | undefined {
  let state = 0;
  let from = 0;
  for (let at = raw.indexOf(SESSION_KEY); at !== -1; at = raw.indexOf(SESSION_KEY, at + 1)) {
    state = walkBytes(raw, from, at, state);
    from = at;
    if (walkDepth(state) !== 1 || walkInString(state) || walkEscaped(state)) continue;
    let i = at + SESSION_KEY.length;
    while (isJsonSpace(raw[i] ?? 0)) i++;
    if (raw[i] !== 0x3a) continue;
    i++;
    while (isJsonSpace(raw[i] ?? 0)) i++;
    if (raw[i] !== 0x22) continue;
    let j = i + 1;
    while (j < raw.length && isPlain(raw[j]!)) j++;
    if (raw[j] === 0x22) return raw.toString('latin1', i + 1, j);
  }
  return undefined;
}

/**
 * The top-level `session_id` of a line, read backwards from its closing `}`
 * through its last scalar members without parsing; undefined when the line
 * does not end that way. A string value is first compared with the last
 * session found (the lines of a session follow one another), which spares
 * checking its bytes one by one: they were checked when it was found. The
 * line is `buf[start, end)` (all of `buf` by default).
 */
export function peekSession(buf: Buffer, start = 0, end = buf.length): string | undefined {
  let i = end - 1;
  if (i < start + 1 || buf[i] !== 0x7d) return undefined;
  i--;
  for (let members = 0; members < MAX_MEMBERS && i > start; members++) {
    // The value ends at i: a plain string, or a number or literal.
    let valueStart: number;
    if (buf[i] === 0x22) {
      const last = lastSessionBytes.length;
      const open = i - last - 1;
      if (last > 0 && open >= start && buf[open] === 0x22 && sameBytes(buf, open + 1, lastSessionBytes)) {
        if (isSessionKey(buf, start, open)) return lastSessionId;
        valueStart = open;
      } else {
        let j = i - 1;
        while (j >= start && isPlain(buf[j]!)) j--;
        if (j < start || buf[j] !== 0x22) return undefined;
        valueStart = j;
        if (isSessionKey(buf, start, valueStart)) {
          lastSessionBytes = Buffer.from(buf.subarray(valueStart + 1, i));
          lastSessionId = lastSessionBytes.toString('latin1');
          return lastSessionId;
        }
      }
    } else {
      let j = i;
      while (j >= start && isScalarByte(buf[j]!)) j--;
      if (j === i) return undefined;
      valueStart = j + 1;
      // The last `session_id` is the one JSON.parse keeps: one that is no string leaves the event none.
      if (isSessionKey(buf, start, valueStart)) return undefined;
    }
    // `:` then the key, a plain string, then `,` (the object's `{` would mean no session here).
    let k = valueStart - 1;
    if (k <= start || buf[k] !== 0x3a) return undefined;
    k--;
    if (buf[k] !== 0x22) return undefined;
    let m = k - 1;
    while (m >= start && isPlain(buf[m]!)) m--;
    if (m < start + 1 || buf[m] !== 0x22 || buf[m - 1] !== 0x2c) return undefined;
    i = m - 2;
  }
  return undefined;
}

/** `text` parsed, or undefined when it is not one JSON value. */
function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Where a walk of tokens left the value (see walkTokens). */
interface TokenWalk {
  /** How many objects and arrays are open. */
  depth: number;
  /** The value closed (the depth came back to 0 after a bracket closed). */
  closed: boolean;
}

/**
 * Feeds `text` to `tokenize` a piece at a time (see tokenizeInSlices),
 * counting from `depth` open what its tokens open and close; the tokens are
 * let go. What the tokenizer throws, this throws.
 */
function walkTokens(tokenize: TokenFn, text: string, depth: number): TokenWalk {
  const walk = { depth, closed: false };
  tokenizeInSlices(tokenize, text, (tokens) => {
    for (const token of tokens) {
      switch (token.name) {
        case 'startObject':
        case 'startArray':
          walk.depth++;
          break;
        case 'endObject':
        case 'endArray':
          if (--walk.depth === 0) walk.closed = true;
          break;
      }
    }
  });
  return walk;
}

/** A record handed over without parsing: the event is parsed on first use. */
class SkimmedRecord implements EventRecord {
  private value: AgentEvent | undefined;
  /** Parsed, it turned out not to be an event (and was reported). */
  failed = false;
  constructor(
    /** The line's bytes; those of the object read from it, where the line is broken after it. */
    public raw: Buffer,
    readonly source: string,
    readonly line: number,
    readonly type: string,
    private readonly broken: (rec: SkimmedRecord, line: Buffer) => void,
  ) {}

  get parsed(): boolean {
    return this.value !== undefined;
  }

  get event(): AgentEvent {
    if (this.value === undefined) {
      // Too deep to read (see MAX_DEPTH): not parsed, and reported so.
      if (nestedTooDeep(this.raw)) return this.fail();
      const text = this.raw.toString('utf8');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        // Broken after the object (`{…}}`): the object, as the full path reads it (see valuesBefore), the line reported.
        const end = valuesBefore(text);
        const before = end === 0 ? undefined : parsedOrUndefined(text.slice(0, end));
        if (isObject(before) && before.type === this.type) {
          const line = this.raw;
          this.value = before as AgentEvent;
          this.raw = Buffer.from(text.slice(0, end).trim());
          this.broken(this, line);
          return this.value;
        }
      }
      if (!isObject(value)) return this.fail();
      this.value = value as AgentEvent;
    }
    return this.value;
  }

  /** Shaped like an event, yet not one: reported now, read as an event of its type with nothing else. */
  private fail(): AgentEvent {
    this.value = { type: this.type };
    this.failed = true;
    this.broken(this, this.raw);
    return this.value;
  }
}

/**
 * Why an input line is not an event: `truncated`, a value cut short, the
 * input ending in it or a line following its first that cannot go on with
 * it; `interrupted`, one its reading was stopped in (SIGINT, SIGTERM).
 */
export type ProblemReason = 'not JSON' | 'not an object' | 'truncated' | 'interrupted' | 'line too long' | 'nested too deep';

/** A line of input that is not an event. */
export interface InputProblem {
  source: string;
  line: number;
  reason: ProblemReason;
  /** The start of the offending line (of the value, for a value that is not an object), made safe to print. */
  excerpt: string;
  /** The offending line's bytes (without its line end). */
  raw: Buffer;
}

/** Formats a problem as `file:line: reason: excerpt` (a file name's control characters made visible, as the excerpt's are). */
export function formatProblem(p: InputProblem): string {
  const source = visibleOneLine(p.source);
  return p.excerpt ? `${source}:${p.line}: ${p.reason}: ${p.excerpt}` : `${source}:${p.line}: ${p.reason}`;
}

/** Receives what the reader finds, in input order. */
export interface ReaderSink {
  record(rec: EventRecord): void;
  problem(p: InputProblem): void;
}

const EXCERPT_CHARS = 60;

/**
 * The first characters of a line, with control characters made visible, for
 * messages: without the white space JSON allows around a value, but with
 * any other (a form feed, a no-break space, a byte-order mark inside the
 * line), which may be what makes the line no JSON: shown as its code.
 */
export function excerptOf(buf: Buffer): string {
  // The bytes of EXCERPT_CHARS characters at most (a line kept for its excerpt keeps one more, to show it goes on), ended
  // between two characters: UTF-8 writes one in 4 bytes at most, and a character cut would be shown as U+FFFD.
  const size = Math.min(buf.length, EXCERPT_CHARS * 4);
  let n = size;
  while (n > size - 3 && n < buf.length && (buf[n]! & 0xc0) === 0x80) n--;
  // Printable ASCII (noise most often) has nothing to make visible, and a character a byte.
  if (printableAscii(buf, n)) {
    const text = buf.toString('latin1', 0, n).replace(JSON_SPACE_AROUND, '');
    return text.length > EXCERPT_CHARS || buf.length > n ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
  }
  const head = buf.toString('utf8', 0, n);
  const chars = Array.from(head.replace(JSON_SPACE_AROUND, ''));
  const text = visibleCodes(chars.slice(0, EXCERPT_CHARS).join('')).replace(UNSEEN_SPACE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return chars.length > EXCERPT_CHARS || buf.length > n ? `${text}…` : text;
}

const JSON_SPACE_AROUND = /^[ \t\r\n]+|[ \t\r\n]+$/g;

/** True when the first `n` bytes of `buf` are printable ASCII, spaces among them (0x20–0x7e). */
function printableAscii(buf: Buffer, n: number): boolean {
  for (let i = 0; i < n; i++) {
    const b = buf[i]!;
    if (b < 0x20 || b > 0x7e) return false;
  }
  return true;
}

/** The bytes a JSON text's value may start with (after white space): `{ [ " -`, a digit, and the literals' `t f n`. */
const JSON_VALUE_START: readonly boolean[] = Array.from({ length: 256 }, (_, b) => '{["-0123456789tfn'.includes(String.fromCharCode(b)));
// White space that is no JSON's and shows as a space, or nothing: shown by its code in an excerpt, the ideographic space
// (U+3000) too, which between two tokens makes a line no JSON that looks like one. (Joiners and the marks of a writing's
// direction are left as written: they belong to the text of many scripts.)
const UNSEEN_SPACE = /[\u00a0\u1680\u180e\u2000-\u200b\u202f\u205f\u2060\u3000\ufeff]/g;


/** stream-json's stringer, fed the parser's packed tokens: a value's compact JSON text, numbers as they were written. */
function compactText(): TokenFn {
  return stringer({ useValues: true }) as unknown as TokenFn;
}

/**
 * True when `raw` is JSON cut short: read to its end without an error, a
 * value still open there (an object or array not closed, a string, a
 * number or literal that may go on).
 */
function cutShort(raw: Buffer): boolean {
  const text = raw.toString('utf8');
  if (!mayGoOn(text)) return false;
  const tokenize = tokenizer();
  let depth = 0;
  try {
    tokenizeInSlices(tokenize, text, (tokens) => {
      for (const token of tokens) {
        if (token.name === 'startObject' || token.name === 'startArray') depth++;
        else if (token.name === 'endObject' || token.name === 'endArray') depth--;
      }
    });
  } catch {
    return false;
  }
  if (depth > 0) return true;
  // Nothing open but a top-level string, number or literal: the end of the input finds it open, or not.
  try {
    tokenize(NONE);
  } catch {
    return true;
  }
  return false;
}

/**
 * True when `text` may be the start of JSON text (values one after another),
 * cut short: more would read on. stream-json's tokenizer waits for more bytes
 * before it judges the last few (an escape, a string's last bytes, a number,
 * a word): JSON broken there (`"a\q"}`) passes for cut when nothing comes
 * after it. So each way a token it may be waiting on could end is tried,
 * with room after it to be judged; where none reads on, the text is broken.
 */
function mayGoOn(text: string): boolean {
  return tokenEnds(text).some((end) => readsOn(text + end + ROOM));
}

/**
 * Where the elements of a top-level array start and end in a line's text
 * (just after an object's or array's opening bracket, and just after its
 * closing one), and where the array ends, found one after another as they
 * are asked for: the line begins `depth` deep (the array is 1), inside a
 * string when `inString`.
 */
export class ElementBounds {
  private at = 0;
  private escaped = false;

  constructor(
    private readonly text: string,
    private depth: number,
    private inString: boolean,
  ) {}

  /** Where the next element starts or ends, before `limit` at most; `limit` when none does before it. */
  next(limit: number): number {
    const { text } = this;
    const to = Math.min(limit, text.length);
    while (this.at < to) {
      const c = text.charCodeAt(this.at++);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
      } else if (c === 0x22) this.inString = true;
      else if ((c === 0x7b || c === 0x5b) && ++this.depth === 2) return this.at;
      else if ((c === 0x7d || c === 0x5d) && --this.depth <= 1) return this.at;
    }
    return limit;
  }
}

/**
 * The reason of a broken line `raw`, for problemThenRun: not JSON, or `cut`
 * where the next run's first event glued on it cut it (the part before,
 * `head`, may go on).
 */
function brokenUnlessCut(raw: Buffer, cut: ProblemReason): (head: Buffer) => ProblemReason {
  return (head) => (head !== raw && mayGoOn(head.toString('utf8')) ? cut : 'not JSON');
}

/** How many places {@link gluedMayGoOn} tries. */
const MAX_GLUED_TRIES = 64;

/**
 * True when a value glued after a `}` or `]` of `text` (`}{`, `} [`, `}"`:
 * white space between or none) may be the start of JSON text cut short
 * (see {@link mayGoOn}): for a line whose value began after another closed
 * on it, which the line's own start, the other's end, does not read as
 * one (`"b":1}{"type":"user","mess` of a value spread over lines). Each
 * such place is tried, from the first, up to {@link MAX_GLUED_TRIES}.
 */
function gluedMayGoOn(text: string): boolean {
  let tries = 0;
  for (let i = 0; i < text.length && tries < MAX_GLUED_TRIES; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x7d && c !== 0x5d) continue;
    let j = i + 1;
    while (j < text.length && isJsonSpace(text.charCodeAt(j))) j++;
    const next = text.charCodeAt(j);
    if (next !== 0x7b && next !== 0x5b && next !== 0x22) continue;
    tries++;
    if (mayGoOn(text.slice(j))) return true;
  }
  return false;
}

/**
 * Where the values at the start of `text` that the tokenizer reads end,
 * those before it finds the text broken: after the last of them closed by a
 * `}` or `]` at the top level (white space, or values of other kinds, may
 * come before it) that reads; 0 when the first does not. Each is tokenized
 * once, after the one before, as the slow path would.
 */
function valuesBefore(text: string): number {
  const tokenize = tokenizer();
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      if (--depth < 0) break;
      if (depth > 0) continue;
      try {
        // With room after it: the tokenizer judges a word (`tru}`) only once more comes.
        tokenizeInSlices(tokenize, text.slice(from, i + 1) + ROOM);
      } catch {
        break;
      }
      from = i + 1;
    }
  }
  return from;
}

/** Bytes after which stream-json's tokenizer judges what came before them, whatever state they leave it in. */
const ROOM = ' '.repeat(32);

/**
 * What may end a token that `text` stops in the middle of, for {@link
 * cutShort}: nothing, or a backslash's escape (`"`), a `\u` escape's digits,
 * a number's digit, the rest of `true`, `false` or `null`.
 */
function tokenEnds(text: string): string[] {
  const ends = [''];
  // Read back from the end, a few characters at most: a regular expression anchored at the end would try every start.
  const n = text.length;
  let hex = 0;
  while (hex < 4 && hex < n && isHexDigit(text.charCodeAt(n - 1 - hex))) hex++;
  if (hex < 4 && text.endsWith('\\u', n - hex)) ends.push('0000');
  let backslashes = 0;
  while (backslashes < n && text.charCodeAt(n - 1 - backslashes) === 0x5c) backslashes++;
  if (backslashes % 2 === 1) ends.push('"');
  if (n > 0 && '-+.eE0123456789'.includes(text[n - 1]!)) ends.push('0');
  let letters = 0;
  while (letters < 5 && letters < n && text.charCodeAt(n - 1 - letters) >= 0x61 && text.charCodeAt(n - 1 - letters) <= 0x7a) letters++;
  const word = text.slice(n - letters);
  if (word !== '') for (const literal of LITERALS) if (literal.length > word.length && literal.startsWith(word)) ends.push(literal.slice(word.length));
  return ends;
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

const LITERALS = ['true', 'false', 'null'];

/** True when stream-json's tokenizer reads `text` without an error (values one after another, as the slow path reads them). */
function readsOn(text: string): boolean {
  try {
    tokenizeInSlices(tokenizer(), text);
    return true;
  } catch {
    return false;
  }
}

/** The elements of a top-level array read by the slow path (see SlowState.array), one at a time. */
interface ArrayElements {
  /** How many elements have been read whole. */
  count: number;
  /**
   * Its first element is an object: each element is read as it closes, an
   * object as an event, anything else as not one. Else the array is one
   * value, not an object, whose elements' texts are kept for its excerpt.
   */
  events: boolean;
  /** With `events` false: the texts of the elements read. */
  texts: string[];
  /** The element being read: its value, its text made from its tokens, and its first line; null between elements. */
  value: Assembler | null;
  text: TokenFn | null;
  parts: string[];
  line: number;
  /**
   * A `result` read whole, handed over only once the array is seen to go on
   * (another element read whole) or to close: an array never closed is cut
   * short, and its run has no result (see SlowState.array), wherever the
   * cut falls after it.
   */
  held: EventRecord | null;
  /** The line the last element read whole ended on (0: none yet), and its text (undefined: one the fast path read). */
  endLine: number;
  lastRaw: Buffer | undefined;
}

/**
 * True when the line `raw` (on which no value was open when it began), read by the tokenizer without an error, was
 * judged to its end: its last {@link LATE_JUDGED} bytes are outside any string and hold nothing but numbers, brackets,
 * commas, colons and white space, which the tokenizer judges as the next byte comes (a line's end is one). A word
 * (`tru}`), a string's bytes (a control character, a `\u` escape) or a key it judges only once more bytes come.
 * `beforeTail`: the walk of the line's bytes (see walkBytes) up to those last bytes.
 */
function judgedToEnd(raw: Buffer, beforeTail: number): boolean {
  if (walkInString(beforeTail) || walkEscaped(beforeTail)) return false;
  for (let i = Math.max(0, raw.length - LATE_JUDGED); i < raw.length; i++) if (!JUDGED_AT_ONCE[raw[i]!]) return false;
  return true;
}

/** How far from a line's end what stream-json's tokenizer may not have judged yet is looked for (see judgedToEnd): its {@link ROOM} and more. */
const LATE_JUDGED = 64;

/** The bytes {@link judgedToEnd} lets by: digits, `-`, `.`, `,`, `:`, `[`, `]`, `{`, `}` and JSON's white space. */
const JUDGED_AT_ONCE: readonly boolean[] = Array.from({ length: 256 }, (_, b) => (b >= 0x30 && b <= 0x39) || '-.,:[]{} \t\r\n'.includes(String.fromCharCode(b)));

/** The tokens that end a value (one at the top level, depth 0 after it, is a value read whole). */
const VALUE_ENDS: ReadonlySet<string> = new Set(['endObject', 'endArray', 'stringValue', 'numberValue', 'trueValue', 'falseValue', 'nullValue']);

/**
 * How many pieces of a value's compact text are kept apart (see pushPart): past that, those since the last joined are
 * joined into one. A line of millions of small values makes a piece of each, pointers and string headers many times
 * the text's size.
 */
const PARTS_JOINED = 4096;

/** Pushes `text` onto the pieces of the slow path's value's compact text, joining those pushed since the last join once there are {@link PARTS_JOINED}. */
function pushPart(slow: SlowState, text: string): void {
  slow.parts.push(text);
  if (slow.parts.length - slow.partsJoined < PARTS_JOINED) return;
  slow.parts.push(slow.parts.splice(slow.partsJoined).join(''));
  slow.partsJoined = slow.parts.length;
}

/** The state of the slow path: one streaming tokenizer reading across lines. */
interface SlowState {
  /**
   * The value is held: an object begun on a long line (more than
   * TOKEN_SLICE characters, see slowFeed) and still open at its end, most
   * often a line cut short, whose many small values would take many times
   * the line's size made into tokens, objects and texts. Its lines are only
   * kept, and checked by the tokenizer: it is reported, as any value, if one
   * fails it or the input ends; read (its lines again) only if it closes.
   */
  held: boolean;
  /**
   * The held value's first line and its end read without an error, an
   * object open, and nothing near its end that the tokenizer judges late
   * (see judgedToEnd): JSON cut short that may go on, which slowFail then
   * need not try the line's endings to tell (see mayGoOn: each tokenizes
   * the line again, seconds on a line of many MiB of small values).
   */
  heldGoesOn: boolean;
  /** A value may be held (not when its lines are read again, once it closed). */
  hold: boolean;
  /**
   * The first line is known to read to its end without an error (the values before a break, see valuesThenProblem):
   * not checked by the tokenizer before it is read (see slowFeed).
   */
  readsWhole: boolean;
  tokenize: TokenFn;
  /** The lines fed since the current value started (the first is where it started). */
  lines: SlowLines;
  /** The line the current value started on. */
  valueLine: number;
  /** A value has begun and not yet closed. */
  open: boolean;
  /** The line the last value closed on (-1: none yet): the current value began after it, not at its line's start, when that is its line. */
  closedOn: number;
  /** How many objects and arrays of the current value are open. */
  depth: number;
  /**
   * When the current value is an array: the element being read. An array
   * whose first element is an object is read as events, each of its own,
   * as its elements close: Claude Code's `--output-format json`, in verbose
   * mode, writes the events of a run as one array, which may be long. An
   * element of it that is not an object is reported as such, where it
   * starts. Any other array (empty, or of something else first) is not an
   * object.
   */
  array: ArrayElements | null;
  /**
   * The line fed last ended inside a string or a key, by its bytes (the
   * tokens tell no key's start): where the next is read from, its brackets
   * counted (see nestedTooDeep) and its byte-order marks judged (see
   * withoutMarksBetween), and what its end is read as (see slowFeed).
   */
  bytesInString: boolean;
  /** The current value's compact JSON text, made from its tokens (see {@link slowTokens}). */
  text: TokenFn;
  parts: string[];
  /** How many of {@link SlowState.parts} are joined already (see pushPart). */
  partsJoined: number;
  /** How many elements of the array the first value is were read already (see {@link EventReader.arrayLine}): not handed over again. */
  skip: number;
  /** A result those elements held (see ArrayElements.held), the array's once it is read. */
  carried: EventRecord | null;
}

const MAX_STRING = (1 << 29) - 24;

const SHAPES = compileShapes(FREQUENT_SHAPES);

/** Of {@link SHAPES}, the text deltas, by type. */
const DELTA_SHAPES = new Map([...SHAPES].map(([type, shapes]) => [type, shapes.filter((shape) => shape.delta)] as const).filter(([, shapes]) => shapes.length > 0));

/** For the byte scan: what a delta starts with, up to its text's opening quote, by shape; for the shapes of text, session, time and `}` only. */
const DELTA_HEADS = new Map(
  [...DELTA_SHAPES.values()]
    .flat()
    .filter(({ strings, pieces }) => strings.join() === 'true,true,false' && pieces[3]!.toString('latin1') === '}')
    .map((shape) => [shape, Buffer.concat([shape.pieces[0]!, Buffer.from('"')])] as const),
);

/** The delta the byte scan lets by where deltas pass (see ReaderOptions.passDeltas): its shape and head, when there is one. */
const PASSING_DELTA = [...DELTA_HEADS][0];

/**
 * The session of `raw`, a line of type `type` (by its start), when it is
 * exactly a text delta; undefined otherwise.
 */
function deltaSession(type: string, raw: Buffer): string | undefined {
  const shape = matchDelta(type, raw);
  return shape === undefined ? undefined : (slotValue(shape, raw, 1) as string);
}

/** What follows the text of a delta of `shape` up to its time, for the session written `sessionBytes` (quotes included). */
function deltaMiddle(shape: CompiledShape, sessionBytes: Buffer): Buffer {
  return Buffer.concat([shape.pieces[1]!, sessionBytes, shape.pieces[2]!]);
}

/**
 * The delta shape `raw`, a line of type `type` (by its start), is exactly
 * of, its slots kept (see matchShape): its text, its session id, its time.
 * Undefined when it is no delta.
 */
function matchDelta(type: string, raw: Buffer): CompiledShape | undefined {
  const shapes = DELTA_SHAPES.get(type);
  return shapes === undefined ? undefined : matchShape(shapes, raw);
}

const EMPTY = Buffer.alloc(0);

/** The largest line-assembly buffer a reader keeps for reuse once its line is read. */
const MAX_KEPT = 16 * 1024 * 1024;

/** The lines of a failed value read again (see EventReader.slowFail): from `next` on, each by `step`, then `done`. */
interface Reread {
  lines: SlowLines;
  next: number;
  step(line: KeptLine): void;
  done(): void;
}

/** How many values may fail in a row, their lines read again, before a value begun on such a line is read no further (see slowFail). */
const MAX_FAILED_IN_ROW = 64;


/** Where the white space from `raw[at]` ends (at `raw`'s end at most). */
function spaceEnd(raw: Buffer, at: number): number {
  while (at < raw.length && isJsonSpace(raw[at]!)) at++;
  return at;
}

/** Where the last byte of `raw` before `before` that is not white space is (-1: none). */
function lastNonSpace(raw: Buffer, before = raw.length): number {
  let i = before - 1;
  while (i >= 0 && isJsonSpace(raw[i]!)) i--;
  return i;
}

/**
 * Where the search for an array element's end stands (see elementEnd): it
 * goes on from there as more of the line comes, rather than from the
 * element's start again.
 */
interface ElementScan {
  /** The next byte to look at. */
  at: number;
  /** How many of the element's objects and arrays are open there. */
  depth: number;
  /** Where the text of the string open there starts; -1 when none is. */
  string: number;
}

/**
 * How far the elements of an array line have been read (see
 * EventReader.arrayElements). Offsets are in the line, a byte-order mark
 * left out.
 */
interface ArrayProgress {
  /** Where the next element is due, or (`after`) the separator after the last one read. */
  at: number;
  /** The last element read ends at `at`, and a comma or the closing `]` is due. */
  after: boolean;
  /** Where the last element read ends (0: none read); a line assembled is cut from {@link ARRAY_HEAD} to there. */
  lastEnd: number;
  /** Some element could not be read so: the slow path takes the line once it has all come. */
  failed: boolean;
  /** The search for the end of the element due at `at`, when it has begun. */
  scan: ElementScan | null;
  /** A result read, held until the array goes on or closes (see ArrayElements.held). */
  held: EventRecord | null;
}

/** What stands, for the slow path, for the elements of an array already read (see EventReader.arrayLine): `[` and one element. */
const ARRAY_READ = Buffer.from('[{}');

/** How much of an array line's start is kept as it is assembled (see EventReader.cutArray): what a problem's excerpt shows. */
const ARRAY_HEAD = EXCERPT_CHARS * 4 + 1;

/** What {@link EventReader.arrayElements} made of the bytes it had: all of the array read, more bytes needed, or the slow path's turn. */
const ARRAY_DONE = 0;
const ARRAY_MORE = 1;
const ARRAY_FAIL = 2;

/**
 * Where the object that starts at `raw[start]` (a `{`) ends, past the `}`
 * that brings its brackets back to none open; -1 when `raw` ends first
 * (`scan`, when given, then says where the search stands, and is where it
 * goes on from), -2 at white space between its tokens. Its brackets and
 * tokens are not checked otherwise: a span that `JSON.parse` reads as an
 * object is that object.
 */
function elementEnd(raw: Buffer, start: number, scan: ElementScan | null): number {
  const n = raw.length;
  let i = scan === null ? start : scan.at;
  let depth = scan === null ? 0 : scan.depth;
  let text = scan === null ? -1 : scan.string;
  for (;;) {
    if (text !== -1) {
      // In a string: to its closing quote.
      const close = closingQuote(raw, text, i);
      if (close === -1) break;
      i = close + 1;
      text = -1;
    }
    if (i >= n) break;
    const b = raw[i]!;
    if (b === 0x22) text = i + 1;
    else if (b === 0x7b || b === 0x5b) depth++;
    else if (b === 0x7d || b === 0x5d) {
      if (--depth === 0) return i + 1;
    } else if (isJsonSpace(b)) return -2;
    i++;
  }
  if (scan !== null) {
    scan.at = n;
    scan.depth = depth;
    scan.string = text;
  }
  return -1;
}

/** What {@link EventReader.passOver} makes of a line. */
const PASS_NO = 0;
const PASS_GIVE = 1;
const PASS_HOLD = 2;

/**
 * Turns bytes into events, synchronously. Feed it with {@link write}, mark the
 * end of each source with {@link endSource}; events and problems go to the
 * sink in input order. Several sources may be read one after the other, each
 * with its own line numbers.
 */
export class EventReader {
  private source = 'stdin';
  private lineNo = 0;
  /** The start of a line not yet ended, read from earlier chunks: `carry[0, carryLength)`, a buffer of the reader's own. */
  private carry: Buffer = EMPTY;
  private carryLength = 0;
  /**
   * With `reuseLines`: the buffer of the line handed over last, while its
   * records may still be in use (until the write that read it returns);
   * the next line is assembled in the other.
   */
  private lent: Buffer = EMPTY;
  private lentNow = false;
  /** `lent` holds the line handed over last, its records in use until this write returns. */
  private lentBusy = false;
  private readonly reuseLines: boolean;
  private readonly maxLine: number;
  private slow: SlowState | null = null;
  /** The lines of failed values still to be read again, the last failed's on top (see slowFail); null when none is read. */
  private rereads: Reread[] | null = null;
  /** The values that failed since the last line came from the input (see slowFail): since line {@link failedAt} came. */
  private failedInRow = 0;
  private failedAt = -1;
  /** The array line being assembled, whose elements are read as its bytes come (see streamArray); null when none. */
  private arrayRead: ArrayProgress | null = null;
  /** While an array's element is read on the fast path: that array, whose result is held (see arrayElements). */
  private element: ArrayProgress | null = null;
  /** Hands a record to the tool (after the deltas joined before it, see handJoined). */
  private readonly hand: (rec: EventRecord) => void;
  private readonly needs: ((type: string) => boolean) | undefined;
  private readonly checkUnread: boolean;
  private readonly skim: ((type: string) => boolean) | undefined;
  private readonly passes: ((type: string) => boolean) | undefined;
  private readonly passesPlain: ((type: string) => boolean) | undefined;
  /** The session of the last line handed over, when it was of a type `passes` says yes to (see {@link passOver}). */
  private runSession: string | undefined;
  /**
   * The type {@link passOver} read of the line it judged last (undefined:
   * the line names none); null when it did not read one. The line was the
   * whole of its bytes (no `\r`, not line 1), so the full path reads the same.
   */
  private passType: string | undefined | null = null;
  /** What the lines of a run start with, for the byte scan (see ByteScan.run): made on first use. */
  private passPrefixes: Buffer | null = null;
  /** What the lines of the run of {@link runSession} end with, for the byte scan. */
  private runTail: Buffer = EMPTY;
  private runTailSession: string | undefined;
  private readonly joinDeltas: boolean;
  private readonly passDeltas: boolean;
  /** For the byte scan, what follows a passing delta's text up to its time in the session of {@link deltaMiddleSession}. */
  private deltaMiddle: Buffer = EMPTY;
  private deltaMiddleSession: string | undefined;
  /** With `joinDeltas`: the deltas read since the last record handed over, not handed over yet. */
  private joined: JoinedDeltas | null = null;
  /** The sink, through which joined deltas go before anything handed over after them. */
  private readonly sink: ReaderSink;
  private readonly broken = (rec: SkimmedRecord, line: Buffer): void => {
    // A value cut short is `truncated`, as the full path names it when the line after it cannot go on with it (see slowFail).
    const reason = nestedTooDeep(line) ? 'nested too deep' : cutShort(line) ? 'truncated' : 'not JSON';
    this.sink.problem({ source: rec.source, line: rec.line, reason, excerpt: excerptOf(line), raw: line });
  };

  constructor(
    private readonly target: ReaderSink,
    options: ReaderOptions = {},
  ) {
    this.needs = options.needs;
    this.checkUnread = options.checkUnread === true;
    this.skim = options.skim;
    // Lines let by in runs go unread, and so unchecked: a reader that checks them lets none by.
    this.passes = options.needs === undefined || this.checkUnread ? undefined : options.passes;
    this.reuseLines = options.reuseLines === true;
    this.maxLine = Math.min(options.maxLine ?? MAX_LINE, MAX_LINE);
    this.joinDeltas = options.joinDeltas === true;
    this.passDeltas = this.passes !== undefined && options.passDeltas === true;
    this.passesPlain = this.passes === undefined ? undefined : options.passesPlain;
    this.hand = !this.joinDeltas
      ? (rec) => target.record(rec)
      : (rec) => {
          this.handJoined();
          target.record(rec);
        };
    this.sink = {
      // The record of an array's element read on the fast path goes through the array's hold of its result.
      record: (rec) => (this.element === null ? this.hand(rec) : this.holdResult(this.element, rec)),
      problem: !this.joinDeltas
        ? (p) => target.problem(p)
        : (p) => {
            this.handJoined();
            target.problem(p);
          },
    };
  }

  /**
   * Joins to the deltas joined so far, the last of them the line before
   * `start` in `chunk`, the deltas of their session that follow it, as the
   * byte scan reads them (see ByteScan.deltas); returns where the first line
   * after them starts.
   */
  private moreDeltas(chunk: Buffer, start: number, scan: LineScan): number {
    const joined = this.joined!;
    const head = joined.head;
    if (head === undefined) return start;
    const texts: number[] = [];
    const count = scan.deltas(start, head, joined.middle(), texts);
    if (count === 0) return start;
    let text = joined.text;
    // The texts' quotes are outside their [start, end).
    for (let k = 0; k < texts.length; k += 3) text += stringValue(chunk, texts[k]! - 1, texts[k + 1]! + 1, texts[k + 2]!);
    joined.text = text;
    joined.time = numberValue(chunk, scan.timeStart, scan.timeEnd);
    this.lineNo += count;
    joined.line = this.lineNo;
    return scan.nextDelta;
  }

  /** Hands over the deltas joined so far, if any. */
  private handJoined(): void {
    const joined = this.joined;
    if (joined === null) return;
    this.joined = null;
    this.target.record(joined);
  }

  /**
   * With `joinDeltas`: when `raw` (line `no`, of type `type` by its start) is
   * exactly a text delta, joins it to the deltas read before it when they
   * are of its session, or hands those over and starts anew with it; true
   * then. False when it is no delta, and nothing is done.
   */
  private joinDelta(type: string, raw: Buffer, no: number): boolean {
    const shape = matchDelta(type, raw);
    if (shape === undefined) return false;
    const start = slotStart(1);
    const end = slotEnd(1);
    const text = slotValue(shape, raw, 0) as string;
    const time = slotValue(shape, raw, 2) as number;
    const joined = this.joined;
    if (joined !== null && joined.sessionBytes.length === end - start && sameBytes(raw, start, joined.sessionBytes)) {
      joined.text += text;
      joined.time = time;
      joined.line = no;
      return true;
    }
    this.handJoined();
    this.joined = new JoinedDeltas(shape, text, slotValue(shape, raw, 1) as string, Buffer.from(raw.subarray(start, end)), time, this.source, no);
    return true;
  }

  /** Starts a new source (a file name, or `stdin`), ending the current one. */
  startSource(source: string): void {
    if (this.lineNo > 0 || this.carryLength > 0 || this.slow) this.endSource();
    this.source = source;
    this.lineNo = 0;
  }

  /** The source being read. */
  get currentSource(): string {
    return this.source;
  }

  /**
   * Feeds bytes of the current source. The records handed over point into
   * `chunk`; the reader keeps nothing of it once the call returns, so a caller
   * whose sink keeps copies of what it keeps may read into it again.
   */
  write(chunk: Buffer): void {
    // The records of the last write are done with: the buffer they pointed into can be assembled into again.
    this.lentNow = false;
    this.lentBusy = false;
    // Only a reader that hands lines over unparsed asks about them.
    const scan = this.needs !== undefined ? new LineScan(chunk) : undefined;
    // A chunk longer than a line may be (a small maxLine) has each of its lines measured: none is let by unseen.
    const measured = chunk.length > this.maxLine;
    const passing = scan !== undefined && this.passes !== undefined && !measured;
    // The last line of a run let by, not handed over yet: `chunk[held, heldEnd)`, line `heldNo`.
    let held = -1;
    let heldEnd = 0;
    let heldNo = 0;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        if (held >= 0) this.line(chunk.subarray(held, heldEnd), heldNo, false, scan, held, null, true);
        // Kept past this call: copied, since the chunk's memory may be read into again once written.
        if (start < chunk.length) this.keep(chunk, start, chunk.length);
        if (this.carryLength > 0 && this.slow === null) this.streamArray();
        // Deltas read are shown as they arrive: none waits for the next write.
        if (this.joined !== null) this.handJoined();
        return;
      }
      if (this.carryLength > 0) {
        this.keep(chunk, start, nl);
        this.line(this.takeCarry(), ++this.lineNo);
        start = nl + 1;
        continue;
      }
      if (measured && nl - start > this.maxLine) this.tooLong(chunk.subarray(start, Math.min(nl, start + 4096)));
      const pass = passing ? this.passOver(chunk, start, nl, scan) : PASS_NO;
      if (pass === PASS_HOLD) {
        held = start;
        heldEnd = nl;
        heldNo = ++this.lineNo;
      } else {
        if (held >= 0) {
          // The run ends: its last line is handed over first.
          const session = this.runSession;
          this.line(chunk.subarray(held, heldEnd), heldNo, false, scan, held, null, true);
          this.runSession = session;
          held = -1;
        }
        if (pass === PASS_NO) {
          this.line(chunk.subarray(start, nl), ++this.lineNo, false, scan, start, passing ? this.passType : null);
          start = nl + 1;
          // A delta joined: the byte scan reads the deltas of its session that follow, in one call.
          if (this.joined !== null && this.joined.line === this.lineNo && scan !== undefined && !measured) start = this.moreDeltas(chunk, start, scan);
          continue;
        }
        const no = ++this.lineNo;
        this.sink.record(new SkimmedRecord(chunk.subarray(start, nl), this.source, no, this.passType!, this.broken));
      }
      start = nl + 1;
      // In a run: the byte scan lets by the lines of it that follow, in a call for each stretch of lines of
      // the types that pass, and one for each stretch of deltas where they pass.
      for (;;) {
        const count = scan!.run(start, this.prefixes(), this.tailOf(this.runSession!));
        if (count > 0) {
          held = scan!.lastRun;
          heldEnd = scan!.nextRun - 1;
          this.lineNo += count;
          heldNo = this.lineNo;
          start = scan!.nextRun;
        }
        const deltas = this.passDeltas && PASSING_DELTA !== undefined ? scan!.deltas(start, PASSING_DELTA[1], this.middleOf(this.runSession!)) : 0;
        if (deltas === 0) break;
        held = scan!.lastDelta;
        heldEnd = scan!.nextDelta - 1;
        this.lineNo += deltas;
        heldNo = this.lineNo;
        start = scan!.nextDelta;
      }
    }
  }

  /** What follows a passing delta's text up to its time in `session`, for the byte scan (see ByteScan.deltas). */
  private middleOf(session: string): Buffer {
    if (this.deltaMiddleSession !== session) {
      this.deltaMiddle = deltaMiddle(PASSING_DELTA![0], Buffer.from(JSON.stringify(session), 'utf8'));
      this.deltaMiddleSession = session;
    }
    return this.deltaMiddle;
  }

  /**
   * The prefixes of the lines of the types a run may hold, for the byte scan:
   * the known types `passes` says yes to, and those `passesPlain` does,
   * marked as such (see ByteScan.run).
   */
  private prefixes(): Buffer {
    if (this.passPrefixes === null) {
      const parts: Buffer[] = [];
      for (const { name } of KNOWN_TYPES) {
        if (this.needs!(name)) continue;
        const mark = this.passes!(name) ? 0 : this.passesPlain?.(name) ? PREFIX_PLAIN : -1;
        if (mark === -1) continue;
        const prefix = Buffer.from(`{"type":"${name}",`, 'latin1');
        parts.push(Buffer.of(prefix.length | mark), prefix);
      }
      this.passPrefixes = Buffer.concat(parts);
    }
    return this.passPrefixes;
  }

  /** What the lines of a run of `session` end with, before their last members: `,"session_id":"…"`. */
  private tailOf(session: string): Buffer {
    if (this.runTailSession !== session) {
      this.runTail = Buffer.from(`,"session_id":"${session}"`, 'latin1');
      this.runTailSession = session;
    }
    return this.runTail;
  }

  /**
   * Judges the line `chunk[start, end)`, not yet counted, for {@link
   * ReaderOptions.passes}: PASS_NO when it is not of such a type or when its
   * bytes do not say for certain what the full path would (see {@link
   * line}); else its session, read from its end, is the run's (PASS_GIVE
   * when a new run starts with it, to be handed over as the full path
   * would; PASS_HOLD when the line before was of the same run).
   */
  private passOver(chunk: Buffer, start: number, end: number, scan: LineScan): number {
    this.passType = null;
    // Line 1 may start with a byte-order mark (another line that does names no type at its start); a line ending `}\r` has no
    // session at its end.
    if (this.slow !== null || this.lineNo === 0 || chunk[end - 1] !== 0x7d) return PASS_NO;
    const type = peekType(chunk, start, end);
    this.passType = type;
    if (type === undefined || this.needs!(type)) return PASS_NO;
    let session: string | undefined;
    if (this.passes!(type) || (this.passesPlain?.(type) === true && plainLine(chunk.subarray(start, end)))) {
      session = peekSession(chunk, start, end);
      // A run's first event glued on (see RUN_START): the line is read one at a time (plainLine has found none).
      if (session === undefined || !scan.typeIsCertain(start, end) || (this.passes!(type) && scan.holdsRunStart(start, end))) return PASS_NO;
    } else {
      // A text delta where deltas pass: of its shape exactly, its type is certain.
      session = this.passDeltas ? deltaSession(type, chunk.subarray(start, end)) : undefined;
      if (session === undefined) return PASS_NO;
    }
    if (session === this.runSession) return PASS_HOLD;
    this.runSession = session;
    return PASS_GIVE;
  }

  /** {@link typeIsCertain} for `raw`, which is `[at, …)` of the chunk `scan` searches when there is one. */
  private typeCertain(raw: Buffer, scan: LineScan | undefined, at: number): boolean {
    return scan === undefined ? typeIsCertain(raw) : scan.typeIsCertain(at, at + raw.length);
  }

  /**
   * Ends the current source: a last line without a newline is read, an
   * unclosed value is reported as `truncated`, or as `interrupted` when the
   * source's reading was `stopped` (the line or value was cut by the stop,
   * not by its writer).
   */
  endSource(stopped = false): void {
    if (this.carryLength > 0) {
      this.line(this.takeCarry(), ++this.lineNo, true);
    }
    while (this.slow) this.slowFail(true, stopped);
    if (this.joined !== null) this.handJoined();
    this.lineNo = 0;
    this.failedAt = -1;
  }

  /** Stops the input at the next line, longer than maxLine, which starts with `head` (see ReaderOptions.maxLine). */
  private tooLong(head: Buffer): never {
    // Deltas read before it are shown before the stop, as before a bad line under --strict.
    if (this.joined !== null) this.handJoined();
    throw new LineTooLongError(this.source, this.lineNo + 1, head, this.maxLine);
  }

  /** Appends `chunk[from, to)` to the line being assembled, growing its buffer by doubling. */
  private keep(chunk: Buffer, from: number, to: number): void {
    if (this.arrayRead !== null && this.carryLength > 0) this.cutArray(to - from);
    if (this.lentNow && this.carryLength === 0) {
      // The line just handed over is in `carry`, its records in use until this write returns: use the other buffer.
      [this.carry, this.lent] = [this.lent, this.carry];
      this.lentNow = false;
      this.lentBusy = true;
    }
    const need = this.carryLength + (to - from);
    if (need > this.maxLine) this.tooLong(this.carryLength > 0 ? this.carry.subarray(0, Math.min(this.carryLength, 4096)) : chunk.subarray(from, Math.min(to, from + 4096)));
    if (need > this.carry.length) {
      if (!this.lentBusy && this.lent.length >= need) {
        // The other buffer is free and long enough (a long line was assembled in it): the line moves there.
        this.carry.copy(this.lent, 0, 0, this.carryLength);
        [this.carry, this.lent] = [this.lent, this.carry];
      } else {
        // Doubled while short; past MAX_KEPT, a quarter more at a time (MAX_KEPT at least), so that a line of GiBs is copied
        // a few times over, not hundreds; never past maxLine (need is within it), which the longest buffer Node makes is not.
        const size = Math.max(need, Math.min(2 * this.carry.length, need + Math.max(MAX_KEPT, Math.floor(need / 4))), 4096);
        const grown = Buffer.allocUnsafeSlow(Math.min(size, this.maxLine));
        this.carry.copy(grown, 0, 0, this.carryLength);
        this.carry = grown;
        // One long buffer is kept, not two: the other, free and shorter, is let go (the tail of a chunk needs little).
        if (!this.lentBusy) this.lent = EMPTY;
      }
    }
    chunk.copy(this.carry, this.carryLength, from, to);
    this.carryLength = need;
  }

  /** The line assembled so far, handed over whole: its buffer is reused for the next only when the options allow. */
  private takeCarry(): Buffer {
    const line = this.carry.subarray(0, this.carryLength);
    this.carryLength = 0;
    // A buffer grown past MAX_KEPT for one huge line is not kept for the next.
    if (!this.reuseLines || this.carry.length > MAX_KEPT) this.carry = EMPTY;
    else this.lentNow = true;
    return line;
  }

  /**
   * Handles one physical line (its `\n` removed). `unterminated`: the source
   * ended without a newline after it, the mark of an agent that died mid-write.
   * `scan`: the scan of the chunk the line is `[at, …)` of, when it is one.
   * `peeked`: its type, when {@link passOver} has read it (null: not read).
   * `judged`: a run's line the reader holds, which {@link passOver} or the
   * byte scan's run has found certain of its type, with no run's first event
   * glued on it: not judged again.
   */
  private line(buf: Buffer, no: number, unterminated = false, scan?: LineScan, at = 0, peeked: string | undefined | null = null, judged = false): void {
    // A line of the full path ends any run (the sink's last session may be another).
    this.runSession = undefined;
    // An array line read as it came (see streamArray): read on from there, if it is still read as an array.
    const progress = this.arrayRead;
    this.arrayRead = null;
    let end = buf.length;
    if (end > 0 && buf[end - 1] === 0x0d) end--;
    const begin = bomLength(buf, end);
    const raw = begin === 0 && end === buf.length ? buf : buf.subarray(begin, end);
    if (this.slow) {
      this.slowFeed(raw, no, unterminated);
      return;
    }
    if (raw[0] === 0x7b && raw[raw.length - 1] === 0x7d && this.quickRecord(raw, no, unterminated, scan, at + begin, peeked, judged)) return;
    const i = spaceEnd(raw, 0);
    if (i === raw.length) return; // blank line
    const first = raw[i];
    if (first === 0x5b /* [ */) {
      // An array of compact objects on one line is read element by element (see arrayLine), whatever its length, as it
      // is when it comes in pieces; any other, by the slow path: one of objects as its events (see SlowState.array),
      // numbers as written.
      if (this.arrayLine(raw, i, no, progress)) return;
      if (raw.length > MAX_STRING) this.problem('line too long', raw, no);
      else this.slowStart(raw, no);
      return;
    }
    if (raw.length > MAX_STRING) {
      this.problem('line too long', raw, no);
      return;
    }
    // A line starting `{` that does not end with `}` (cut short, most often) is no object: JSON.parse would make all of it
    // before it found so at the end, the slow path none of it (see SlowState.held), and that path tells one too deep.
    if (first === 0x7b /* { */ && raw[lastNonSpace(raw)] !== 0x7d) {
      this.slowStart(raw, no);
      return;
    }
    // Arrays and objects nested deeper than a tool reads (see MAX_DEPTH): reported, never built. (An array line's elements
    // are checked one by one, as they would be had it come in pieces: see arrayElementLine and slowFeed.)
    if (nestedTooDeep(raw)) {
      this.problem('nested too deep', raw, no);
      return;
    }
    const text = raw.toString('utf8');
    if (first === 0x7b /* { */) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        this.slowStart(raw, no);
        return;
      }
      this.sink.record({ event: value as AgentEvent, raw, source: this.source, line: no });
      return;
    }
    // Noise (a warning on `2>&1`) most often starts with a byte no JSON value starts with: JSON.parse's error is not made.
    if (!JSON_VALUE_START[first]!) {
      this.problemThenRun(raw, no, unterminated, () => 'not JSON');
      return;
    }
    try {
      JSON.parse(text);
    } catch {
      // A value glued before an object (`42 {…}`): each value is read, as where an object comes first.
      if (scalarBeforeObject(text)) this.slowStart(raw, no);
      // Noise (a warning on `2>&1`), perhaps with the next run's first event glued on.
      else this.problemThenRun(raw, no, unterminated, () => 'not JSON');
      return;
    }
    this.problem('not an object', raw, no);
  }

  /**
   * Hands over `raw` (line `no`, an object by its first and last bytes; `at`
   * where it is in the chunk `scan` searches, when there is one; `peeked` its
   * type when read, null when not) without `JSON.parse` when its bytes allow:
   * unparsed when the reader does not need its type, from its bytes when it
   * is of a frequent shape, skimmed when the tool skims it. False when
   * nothing was handed over: the line takes the full path. `element`: `raw`
   * is an element of an array, checked before it is handed over unparsed.
   */
  private quickRecord(
    raw: Buffer,
    no: number,
    unterminated: boolean,
    scan: LineScan | undefined,
    at: number,
    peeked: string | undefined | null,
    judged = false,
    element = false,
  ): boolean {
    if (this.needs === undefined && this.skim === undefined) return false;
    const type = peeked !== null ? peeked : peekType(raw);
    // A last line without its newline may be torn just after a `}`: it is always parsed.
    // Glued values (`}{`) are not one event, and a later `type` key is the one JSON.parse keeps: those lines take the full path.
    if (
      type !== undefined &&
      this.needs !== undefined &&
      !unterminated &&
      !this.needs(type) &&
      (judged ||
        (this.typeCertain(raw, scan, at) &&
          // Perhaps a run's first event glued on (see RUN_START): read in full. The check below finds it too.
          (this.checkUnread || !(scan === undefined ? holdsRunStart(raw) : scan.holdsRunStart(at, at + raw.length))))) &&
      // A line the check fails takes the full path below; an array's element is checked whatever the options.
      ((!this.checkUnread && !element) || unreadLineChecked(type, raw))
    ) {
      this.sink.record(new SkimmedRecord(raw, this.source, no, type, this.broken));
      return true;
    }
    // A line exactly of a frequent shape (a delta) is read from its bytes; the match is exact, so a glued line is not one.
    if (type !== undefined && !unterminated && raw.length <= MAX_STRING) {
      // Not after a result an array holds (see holdResult): the delta would be joined to those before it.
      if (this.joinDeltas && (this.element === null || this.element.held === null) && this.joinDelta(type, raw, no)) return true;
      const event = parseShape(SHAPES, type, raw);
      if (event !== undefined) {
        this.sink.record({ event, raw, source: this.source, line: no });
        return true;
      }
    }
    // The skim checks the whole line as JSON.parse would, so a torn or glued line is left to the full path.
    if (type !== undefined && this.skim !== undefined && raw.length >= SKIM_THRESHOLD && raw.length <= MAX_STRING && this.skim(type)) {
      const event = skimParse(raw);
      if (event !== undefined) {
        this.sink.record({ event: event as AgentEvent, raw, source: this.source, line: no });
        return true;
      }
    }
    return false;
  }

  /**
   * Reports the line `raw`, which is not an event, for what comes before the
   * next run's first event glued on it (see RUN_START), as `reason` names that
   * part (all of `raw` when none is glued on), then reads that event, as a
   * line of its own with the same number. `shown`: what the excerpt shows,
   * when not the part reported.
   */
  private problemThenRun(raw: Buffer, no: number, unterminated: boolean | undefined, reason: (head: Buffer) => ProblemReason, shown?: Buffer): void {
    let glued = gluedRunStart(raw);
    if (glued <= 0) glued = overwrittenBy(raw);
    const head = glued > 0 ? raw.subarray(0, glued) : raw;
    this.problem(reason(head), head, no, shown);
    if (glued > 0) this.line(raw.subarray(glued), no, unterminated);
  }

  private problem(reason: ProblemReason, raw: Buffer, no: number, shown: Buffer = raw): void {
    this.sink.problem({ source: this.source, line: no, reason, excerpt: excerptOf(shown), raw });
  }

  /**
   * Reads the line `raw`, whose `[` is at `open`, as one array of events
   * (Claude Code's `--output-format json` in verbose mode writes a run so),
   * each element as a line of its own is read, where it is: true when it
   * was. Elements are read so while each is an object written compactly (no
   * white space between its tokens) that is read as a line is; the first
   * that is not (a value of another kind, white space, a value broken or
   * cut), or anything but a comma, or the closing `]` and white space to the
   * line's end, after one, sends what was not read to the slow path, which
   * reads and reports it as it reads any array (see SlowState.array), behind
   * `[{}`, which stands for the elements read (the slow path skips it), so
   * that what it reports depends neither on those elements nor on how the
   * line came. False when no element was read: the caller takes the slow
   * path.
   *
   * A line longer than a read has had its elements read as its bytes came,
   * and those read cut from it (see streamArray): what is left of it is read
   * from where that stopped, `read`.
   *
   * An element's bytes are its record's, as a line's are: numbers and
   * strings as written.
   */
  private arrayLine(raw: Buffer, open: number, no: number, read: ArrayProgress | null): boolean {
    const progress = read ?? { at: open + 1, after: false, lastEnd: 0, failed: false, scan: null, held: null };
    if (!progress.failed && this.arrayElements(raw, progress, no, true) === ARRAY_DONE) {
      this.releaseHeld(progress);
      return true;
    }
    if (progress.lastEnd === 0) return false;
    // What was not read, after an element that stands for those read, which the slow path skips; the excerpts of the
    // problems it reports show where the line starts, as they would have.
    const rest = Buffer.concat([ARRAY_READ, raw.subarray(progress.lastEnd)]);
    if (rest.length > MAX_STRING) this.problem('line too long', rest, no, raw.subarray(0, ARRAY_HEAD));
    else this.slowStart(rest, no, 1, raw.subarray(0, ARRAY_HEAD), progress.held);
    return true;
  }

  /**
   * Reads the elements of the array line `raw` (line `no`; `final`: all of
   * it, else the part come so far) from where `progress` says, as arrayLine
   * does, and moves `progress` on.
   */
  private arrayElements(raw: Buffer, progress: ArrayProgress, no: number, final: boolean): number {
    const n = raw.length;
    // A `\r` read as white space may have been left out of the line since, as its end.
    let at = Math.min(progress.at, n);
    for (;;) {
      at = spaceEnd(raw, at);
      if (at === n && !final) break;
      if (!progress.after) {
        if (raw[at] !== 0x7b /* { */) return ARRAY_FAIL;
        const scan = progress.scan ?? (final ? null : { at, depth: 0, string: -1 });
        const end = elementEnd(raw, at, scan);
        // Not all come: the search goes on from where it stands when more has.
        if (end === -1 && !final) {
          progress.scan = scan;
          break;
        }
        progress.scan = null;
        if (end < 0) return ARRAY_FAIL;
        // Its record goes through the sink's hold of results (see ArrayElements.held).
        this.element = progress;
        const read = this.arrayElementLine(raw.subarray(at, end), no);
        this.element = null;
        if (!read) return ARRAY_FAIL;
        progress.lastEnd = end;
        progress.after = true;
        at = end;
        continue;
      }
      if (raw[at] === 0x2c /* , */) {
        progress.after = false;
        at++;
        continue;
      }
      // What follows the closing `]` is judged once the line has all come.
      if (raw[at] !== 0x5d /* ] */) return ARRAY_FAIL;
      if (!final) break;
      return spaceEnd(raw, at + 1) === n ? ARRAY_DONE : ARRAY_FAIL;
    }
    progress.at = at;
    return ARRAY_MORE;
  }

  /**
   * The line being assembled, longer than a read: when it is an array, reads
   * the elements that have all come (see arrayLine). What was read, but the
   * line's first bytes, is cut from it before more of it is kept (see
   * cutArray), so that memory holds an element and not the array.
   */
  private streamArray(): void {
    let progress = this.arrayRead;
    const base = bomLength(this.carry, this.carryLength);
    if (progress === null) {
      if (base >= this.carryLength || this.carry[base] !== 0x5b /* [ */) return;
      progress = this.arrayRead = { at: 1, after: false, lastEnd: 0, failed: false, scan: null, held: null };
    }
    if (progress.failed) return;
    // A line of the full path ends any run (as in line).
    this.runSession = undefined;
    if (this.arrayElements(this.carry.subarray(base, this.carryLength), progress, this.lineNo + 1, false) === ARRAY_FAIL) progress.failed = true;
  }

  /**
   * Cuts from the array line being assembled what was read but its first
   * bytes (see streamArray), before `room` more bytes are kept. Without
   * `reuseLines`, the records handed over keep the bytes they point into
   * for good: what is left goes to a new buffer.
   */
  private cutArray(room: number): void {
    const progress = this.arrayRead!;
    const cut = progress.lastEnd - ARRAY_HEAD;
    if (progress.failed || cut <= 0) return;
    const base = bomLength(this.carry, this.carryLength);
    const left = this.carryLength - cut;
    if (this.reuseLines) {
      this.carry.copyWithin(base + ARRAY_HEAD, base + progress.lastEnd, this.carryLength);
    } else {
      const fresh = Buffer.allocUnsafeSlow(Math.max(left + room, 4096));
      this.carry.copy(fresh, 0, 0, base + ARRAY_HEAD);
      this.carry.copy(fresh, base + ARRAY_HEAD, base + progress.lastEnd, this.carryLength);
      this.carry = fresh;
    }
    this.carryLength = left;
    progress.at -= cut;
    progress.lastEnd = ARRAY_HEAD;
    const scan = progress.scan;
    if (scan !== null) {
      scan.at -= cut;
      if (scan.string !== -1) scan.string -= cut;
    }
  }

  /**
   * Reads `raw`, an element of an array on line `no` that starts with `{`,
   * ends with its matching `}` and holds no white space between its tokens,
   * as a line of that one event is read (see quickRecord), but that one of
   * a type the tool does not read is checked first, as strictly as
   * `JSON.parse` would check it: unlike a line, whose end is its newline, an
   * element ends where the search of its brackets and strings says, and a
   * byte flipped in it could make it run on into the elements after it.
   * False when it does not pass, or had to be parsed and does not parse
   * (nothing is handed over).
   */
  private arrayElementLine(raw: Buffer, no: number): boolean {
    if (this.quickRecord(raw, no, false, undefined, 0, null, false, true)) return true;
    // Too deep to read: the slow path reports it (see slowFeed).
    if (nestedTooDeep(raw)) return false;
    let value: unknown;
    try {
      value = JSON.parse(raw.toString('utf8'));
    } catch {
      return false;
    }
    this.sink.record({ event: value as AgentEvent, raw, source: this.source, line: no });
    return true;
  }

  /**
   * Starts the slow path at the line `raw`; `skip`: how many elements of an
   * array it opens were read already (see arrayLine); `shown`: what the
   * excerpts of problems of the whole line show, when not `raw`.
   */
  private slowStart(raw: Buffer, no: number, skip = 0, shown?: Buffer, carried: EventRecord | null = null, hold = true, readsWhole = false): void {
    this.slow = {
      skip,
      carried,
      held: false,
      heldGoesOn: false,
      hold,
      readsWhole,
      tokenize: tokenizer(),
      lines: new SlowLines(),
      valueLine: no,
      open: false,
      closedOn: -1,
      depth: 0,
      array: null,
      bytesInString: false,
      text: compactText(),
      parts: [],
      partsJoined: 0,
    };
    this.slowFeed(raw, no, false, shown);
  }

  /** Feeds one line to the tokenizer; leaves the slow path when no value is open at its end. */
  private slowFeed(raw: Buffer, no: number, unterminated = false, shown?: Buffer): void {
    const slow = this.slow!;
    // Arrays and objects nested deeper than a tool reads (see MAX_DEPTH), counted from the depth the value is at: the value
    // fails where it began (a result an array held let go with it, see slowFail), and this line is reported.
    if (nestedTooDeep(raw, slow.depth, slow.bytesInString)) {
      this.slowFail(false, false, 'nested too deep');
      this.problem('nested too deep', raw, no, shown);
      return;
    }
    const startsInString = slow.bytesInString;
    // The line's bytes walked once: the state before its last few is judgedToEnd's, the state at its end what it ends in.
    const tail = Math.max(0, raw.length - LATE_JUDGED);
    const beforeTail = walkBytes(raw, 0, tail, startsInString ? WALK_IN_STRING : 0);
    slow.bytesInString = walkInString(walkBytes(raw, tail, raw.length, beforeTail));
    // Kept until the value closes, past the chunk it was read from: a copy.
    slow.lines.push(raw, no, unterminated, shown);
    const text = withoutMarksBetween(raw, slow.depth, startsInString);
    // A line on which no value was open when it began (not one of an array the fast path has read a part of), broken
    // after values that read (`{…} xote`, `{…}}`): those values are read, and the line reported, as where the word after
    // them reads on (`{…} note`, below).
    const fresh = !slow.open && slow.skip === 0 && slow.carried === null;
    const recover = fresh ? () => this.valuesThenProblem(raw, text, no, unterminated, shown) : undefined;
    // A line end inside a string (or a key, which the tokens do not show until it ends: the line's quotes do) is a literal
    // newline in the value: read it as `\n`.
    const newline = slow.bytesInString ? '\\n' : '\n';
    if (slow.held) {
      this.heldFeed(slow, text, newline);
      return;
    }
    // What the tokenizer refuses fails the value; what the sink throws (a --strict stop) is the sink's. A long line is
    // read a piece at a time (see tokenizeInSlices); one on which a value starts, a line cut short most often, once the
    // tokenizer has read it all without an error (unless it is known to, see SlowState.readsWhole): the value takes
    // nothing of a line the tokenizer refuses. An object still open at the line's end is held (see SlowState.held);
    // anything else is read again, by a tokenizer anew.
    if (fresh && !slow.readsWhole && text.length > TOKEN_SLICE) {
      let read: TokenWalk;
      try {
        read = walkTokens(slow.tokenize, text, 0);
      } catch {
        if (!recover?.()) this.slowFail(false);
        return;
      }
      if (slow.hold && !read.closed && read.depth > 0 && raw[spaceEnd(raw, 0)] === 0x7b) {
        slow.held = true;
        slow.open = true;
        slow.valueLine = no;
        slow.depth = read.depth;
        slow.heldGoesOn = this.heldNewline(slow, newline) && judgedToEnd(raw, beforeTail);
        return;
      }
      slow.tokenize = tokenizer();
    }
    // In a top-level array begun on an earlier line, the line is given a piece at a time, each piece ending where an
    // element starts or ends: the tokenizer, refusing what follows one on the line (`{…}, x`), has then handed over that
    // element's tokens, which a refusal loses with the rest of its input; and a refusal inside an element comes once
    // the element has begun (`{"a" x`), not as if between two.
    const ends = slow.array !== null ? new ElementBounds(text, slow.depth, startsInString) : null;
    for (let at = 0; at < text.length; ) {
      const limit = Math.min(at + TOKEN_SLICE, text.length);
      const to = ends === null ? limit : ends.next(limit);
      const tokens = this.slowTokenize(slow, text.slice(at, to), recover);
      if (tokens === null) return;
      this.slowTokens(slow, tokens, no);
      at = to;
    }
    const end = this.slowTokenize(slow, newline);
    if (end === null) return;
    this.slowTokens(slow, end, no);
    if (slow.open) return;
    this.slow = null;
    // No value open at the line's end: what the tokenizer still holds, which it leaves for more to come, is judged now (a
    // word after the value, `note`, or one cut short, `nul`: nothing can go on with it across the line end). The values
    // of the line were read; the rest of it is reported, as a word it finds broken at once is (`xote`, above).
    try {
      slow.tokenize(ROOM);
    } catch {
      this.problem(mayGoOn(raw.toString('utf8')) ? 'truncated' : 'not JSON', raw, no);
    }
  }

  /**
   * A line of a held value (see SlowState.held), its text `text`, then the
   * line's end (`newline`): checked by the tokenizer only, the value still
   * held while it stays open; once it closes, its lines are read again, as
   * they would have been, had it not been held.
   */
  private heldFeed(slow: SlowState, text: string, newline: string): void {
    let read: TokenWalk;
    try {
      read = walkTokens(slow.tokenize, text, slow.depth);
    } catch {
      this.slowFail(false);
      return;
    }
    if (read.closed) {
      this.slow = null;
      const first = slow.lines.line(0);
      this.slowStart(first.buf, first.no, 0, first.shown, null, false);
      for (let i = 1; i < slow.lines.length; i++) {
        const line = slow.lines.line(i);
        if (this.slow) this.slowFeed(line.buf, line.no, line.unterminated);
        else this.line(line.buf, line.no, line.unterminated);
      }
      return;
    }
    slow.depth = read.depth;
    this.heldNewline(slow, newline);
  }

  /**
   * A held value's line ends: the tokenizer reads the line end as it would (see slowFeed); what it refuses fails the value.
   * False when it does.
   */
  private heldNewline(slow: SlowState, newline: string): boolean {
    try {
      walkTokens(slow.tokenize, newline, slow.depth);
      return true;
    } catch {
      this.slowFail(false);
      return false;
    }
  }

  /**
   * The tokens of `text`, or null when the tokenizer refuses it: the value has failed (see slowFail), unless `recover`
   * reads what it can of the line and says true.
   */
  private slowTokenize(slow: SlowState, text: string, recover?: () => boolean): unknown {
    try {
      return slow.tokenize(text);
    } catch {
      if (recover?.()) return null;
      this.slowFail(false);
      return null;
    }
  }

  /**
   * The line `raw` (its text `text`), on which no value was open when it
   * began, is broken: the values before the break (see valuesBefore) are
   * read, as a line of their own would be, and the line is reported, as
   * where a word after them reads on. False when no value comes before the
   * break: the line fails as a whole (see slowFail).
   */
  private valuesThenProblem(raw: Buffer, text: string, no: number, unterminated: boolean, shown?: Buffer): boolean {
    const end = valuesBefore(text);
    if (end === 0) return false;
    this.slow = null;
    // They close on the line, and nothing waits after them: the slow path reads them (read to their end already, they are
    // not checked again) and is done with the line.
    this.slowStart(Buffer.from(text.slice(0, end)), no, 0, undefined, null, true, true);
    this.problemThenRun(raw, no, unterminated, brokenUnlessCut(raw, 'truncated'), shown);
    return true;
  }

  private slowTokens(slow: SlowState, result: unknown, no: number): void {
    for (const token of tokensOf(result)) {
      switch (token.name) {
        case 'startString':
          // A string at the top level is a value (read whole by the token that follows its end): one cut by its line's end
          // goes on to the next line.
          if (!slow.open) this.slowOpen(slow, token, no);
          continue;
        case 'endString':
        case 'stringChunk':
          continue;
      }
      if (!slow.open) this.slowOpen(slow, token, no);
      const array = slow.array;
      if (array === null) {
        const text = slow.text(token as never);
        if (typeof text === 'string') pushPart(slow, text);
      } else if (slow.depth > 1 || (slow.depth === 1 && token.name !== 'endArray')) {
        // An element of a top-level array: its own value and compact text, numbers as written.
        if (slow.depth === 1 && array.text === null) {
          array.value = new Assembler();
          array.text = compactText();
          array.parts = [];
          array.line = no;
          // Read as events, the array needs none of its lines before this element's (a cut is reported where it starts).
          if (array.events) slow.lines.dropEarlier();
        }
        array.value!.consume(token as never);
        const text = array.text!(token as never);
        if (typeof text === 'string') array.parts.push(text);
      }
      if (token.name === 'startObject' || token.name === 'startArray') slow.depth++;
      else if (token.name === 'endObject' || token.name === 'endArray') slow.depth--;
      if (array !== null && slow.depth === 1 && array.text !== null) {
        array.endLine = no;
        this.arrayElement(array, slow);
        continue;
      }
      if (array !== null && slow.depth === 0) {
        this.releaseHeld(array);
        slow.open = false;
        slow.closedOn = no;
        slow.skip = 0;
        // An empty array, or one of something else first: one value, not an object (see SlowState.array).
        if (!array.events) this.problem('not an object', slow.lines.first(), slow.valueLine, Buffer.from(`[${array.texts.join(',')}]`));
        slow.array = null;
        slow.lines.keepLast(no);
        continue;
      }
      if (array === null && slow.depth === 0 && VALUE_ENDS.has(token.name)) {
        slow.open = false;
        slow.closedOn = no;
        // Its text as read, without the white space: numbers as written (`1.50`, `12345678901234567890123`); the value
        // parsed from it, as a line is (an object's `__proto__` its own key), not made token by token.
        const text = slow.parts.join('');
        const value: unknown = JSON.parse(text);
        if (isObject(value)) {
          this.sink.record({
            event: value as AgentEvent,
            raw: Buffer.from(text),
            source: this.source,
            line: slow.valueLine,
          });
        } else {
          // The excerpt is of the value itself: on its line, an object glued before it would hide it.
          this.problem('not an object', slow.lines.first(), slow.valueLine, Buffer.from(exactJsonText(value)));
        }
        slow.lines.keepLast(no);
      }
    }
  }

  /** A value starts, on line `no`, with `token`. */
  private slowOpen(slow: SlowState, token: Token, no: number): void {
    slow.open = true;
    slow.valueLine = no;
    // The value starts on this line: earlier lines are done with.
    slow.lines.dropEarlier();
    slow.text = compactText();
    slow.parts = [];
    slow.partsJoined = 0;
    slow.depth = 0;
    slow.array = token.name === 'startArray' ? { count: 0, events: false, texts: [], value: null, text: null, parts: [], line: no, held: slow.carried, endLine: 0, lastRaw: undefined } : null;
    slow.carried = null;
  }

  /** An element of a top-level array read whole (see SlowState.array): an event, or not an object, where it starts. */
  private arrayElement(array: ArrayElements, slow: SlowState): void {
    const value: unknown = array.value!.current;
    const text = array.parts.join('');
    array.value = null;
    array.text = null;
    array.parts = [];
    const index = array.count++;
    if (index === 0) array.events = isObject(value);
    if (!array.events) {
      array.texts.push(text);
      return;
    }
    if (index < slow.skip) {
      array.lastRaw = undefined;
      return;
    }
    this.releaseHeld(array);
    const raw = (array.lastRaw = Buffer.from(text));
    if (!isObject(value)) {
      this.problem('not an object', slow.lines.first(), array.line, raw);
      return;
    }
    this.holdResult(array, { event: value as AgentEvent, raw, source: this.source, line: array.line });
    // Handed over, the first element needs none of the array's lines before its own, as the others do not (see
    // slowTokens): were the array to fail, they would be read again, that element with them. (A result held is let go
    // where it starts, its line not read again: see slowFail.)
    if (index === 0 && array.held === null) slow.lines.dropBefore(array.line);
  }

  /**
   * The record of an array's element read whole (see ArrayElements.held): a
   * result held before it is handed over first; a result is held, read now
   * and its bytes copied (the line's buffer and the chunk are read into
   * again); any other record is handed over.
   */
  private holdResult(array: ArrayElements | ArrayProgress, rec: EventRecord): void {
    this.releaseHeld(array);
    if (recordType(rec) === 'result') array.held = { event: rec.event, raw: ownBytes(rec.raw), source: rec.source, line: rec.line, type: 'result' };
    else this.hand(rec);
  }

  /** Hands over the result an array held (see ArrayElements.held): the array went on, or closed. */
  private releaseHeld(array: ArrayElements | ArrayProgress): void {
    const held = array.held;
    if (held === null) return;
    array.held = null;
    this.hand(held);
  }

  /**
   * The tokenizer met an error (or the input ended inside a value, its
   * reading `stopped` or not): the value is reported at the line it started
   * on, and the lines after that one are read again from the fast path,
   * since an event may follow a torn line. `refused`: the value was given
   * up for that reason, at a line after them, rather than cut there.
   * `forced`: it is cut at the end of the line last read, which the
   * tokenizer did not refuse (see MAX_FAILED_IN_ROW).
   */
  private slowFail(atEnd: boolean, stopped = false, refused?: ProblemReason, forced = false): void {
    const slow = this.slow!;
    this.slow = null;
    // A held value is an object still open: the end of the input cannot close it.
    if (atEnd && !slow.held) {
      try {
        this.slowTokens(slow, slow.tokenize(NONE), slow.valueLine);
        if (!slow.open) return;
      } catch {
        // reported below
      }
    }
    const cut: ProblemReason = refused ?? (stopped ? 'interrupted' : 'truncated');
    // An array of events never closed is cut short, however its last line ends (`{…},`), and its run has no result: a result
    // it held is let go, reported where it starts, in the order of the lines (its line is not read again).
    const array = slow.array !== null && slow.array.events ? slow.array : null;
    let held = array?.held ?? null;
    const reportHeld = (before: number): void => {
      if (held === null || held.line > before) return;
      this.problem(cut, held.raw, held.line);
      held = null;
    };
    // Counted from the line that came from the input last (lines read again keep their own numbers).
    if (this.failedAt !== this.lineNo) {
      this.failedAt = this.lineNo;
      this.failedInRow = 0;
    }
    this.failedInRow++;
    if (array !== null && !forced && refused === undefined && array.text === null && array.endLine > 0) {
      this.arrayBroken(array, slow, cut, stopped, atEnd);
      return;
    }
    const lines = slow.lines;
    // (None when the value failed on its first line before it was kept: `nested too deep`, reported by the caller.)
    const first = lines.length > 0 ? lines.line(0) : null;
    const heldFirst = first !== null && held !== null && held.line === first.no;
    if (first !== null) reportHeld(first.no);
    if (first !== null && !heldFirst) {
      const line = first;
      // A value whose first line may go on (see mayGoOn), and could not, was cut where that line began: by a line that
      // cannot go on with it, by its own line end (`"n":-`), or by the end of the input; where a value may follow (after
      // `:`, `[`), perhaps by the next run's first event glued on, read on as a value of the cut line. One broken in that
      // line is not JSON, wherever the tokenizer found out (it judges a line's last few bytes only once more come).
      const text = line.buf.toString('utf8');
      // An element's line of an array of events begun on a line before it is judged where it is, in the array (`{…},`
      // goes on there), not as a line of its own; not where a later line was refused (that line is reported, this one
      // as a line of its own).
      const inArray = array !== null && refused === undefined && slow.valueLine < line.no && line.buf[spaceEnd(line.buf, 0)] === 0x7b;
      if (atEnd && array !== null) this.problem(cut, line.buf, line.no, line.shown);
      else if (slow.heldGoesOn || mayGoOn(inArray ? `[${text}` : text) || (slow.closedOn === slow.valueLine && gluedMayGoOn(text))) this.problemThenRun(line.buf, line.no, line.unterminated, () => cut, line.shown);
      // Broken in the line: perhaps a line cut short with the next run's first event glued on.
      else this.problemThenRun(line.buf, line.no, line.unterminated, brokenUnlessCut(line.buf, cut), line.shown);
    }
    // The lines after the first are read again, as lines of their own. A value begun on one of them that fails too has its
    // lines read again before the rest of these: one after another, not one inside another, so that a thousand lines of
    // `[` do not take a thousand nested calls. After MAX_FAILED_IN_ROW values failed since the last line came from the
    // input, a value begun on a line read again is no longer read on into the lines after it (each of which it would read
    // again as it failed, the square of their number in all): it fails at that line's end, cut short there.
    this.reread({
      lines,
      next: 1,
      step: (line) => {
        const heldHere = held !== null && held.line === line.no;
        reportHeld(line.no);
        if (!heldHere) this.readAgain(line, stopped);
      },
      done: () => reportHeld(Infinity),
    });
  }

  /**
   * An array of events the tokenizer refused between two elements, or that
   * the input ended in there (`atEnd`; see slowFail, whose lines it reads
   * as `this.slow` held them): where the last element read ended tells how.
   * Refused on the line it ended on (`{…}, x`), that line is broken, not
   * JSON, as an array on one line broken so is, and a result held there is
   * let go with it; the element's first line is reported so too, where it
   * began on a line before. Refused on a line after it (`{…},`, then `x`),
   * or ended in by the input however its last line ends, the array was cut
   * short there: reported `cut` at the element's first line, with the
   * element's text, whose session the cut is (not that of an element before
   * it on the line). The lines of the array up to the last element's end
   * were read, and are not read again (an object inside an element is no
   * event); those after it are.
   */
  private arrayBroken(array: ArrayElements, slow: SlowState, cut: ProblemReason, stopped: boolean, atEnd: boolean): void {
    const lines = slow.lines;
    const last = lines.line(lines.length - 1);
    // Lines kept before the element's own (the array's `[`, white space, kept while its first element, a result, was held) were read.
    let at = 0;
    while (at < lines.length - 1 && lines.no(at) < array.line) at++;
    const start = lines.line(at);
    if (!atEnd && array.endLine === last.no) {
      // Over lines, the element's first line is all its own: an object that ends it is inside it, no event glued on.
      if (last.no === start.no) this.problemThenRun(start.buf, start.no, start.unterminated, brokenUnlessCut(start.buf, cut), start.shown);
      else {
        this.problem('not JSON', start.buf, start.no, start.shown);
        this.problemThenRun(last.buf, last.no, last.unterminated, brokenUnlessCut(last.buf, cut), last.shown);
      }
    } else {
      this.problem(cut, array.held?.raw ?? array.lastRaw ?? start.buf, start.no, start.shown ?? start.buf);
    }
    array.held = null;
    let next = at;
    while (next < lines.length && lines.no(next) <= array.endLine) next++;
    this.reread({
      lines,
      next,
      step: (line) => this.readAgain(line, stopped),
      done: () => {},
    });
  }

  /**
   * Reads again `line`, of a value that failed, as a line of its own; a value begun on it is cut at its end once
   * MAX_FAILED_IN_ROW values have failed in a row (see slowFail).
   */
  private readAgain(line: KeptLine, stopped: boolean): void {
    this.line(line.buf, line.no, line.unterminated);
    if (this.slow !== null && this.slow.valueLine === line.no && this.failedInRow >= MAX_FAILED_IN_ROW) this.slowFail(false, stopped, undefined, true);
  }

  /** Reads again the lines `reread` holds: now, or, while the lines of another are read again, before the rest of them. */
  private reread(reread: Reread): void {
    if (this.rereads !== null) {
      this.rereads.push(reread);
      return;
    }
    const stack = [reread];
    this.rereads = stack;
    try {
      while (stack.length > 0) {
        const top = stack[stack.length - 1]!;
        if (top.next < top.lines.length) top.step(top.lines.line(top.next++));
        else {
          stack.pop();
          top.done();
        }
      }
    } finally {
      this.rereads = null;
    }
  }
}
