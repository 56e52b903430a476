/**
 * Byte scans of a small WebAssembly module with SIMD instructions, 16 bytes
 * at a time.
 *
 * For the skim (see skim.ts): from a position inside a JSON string, where the
 * next byte is that the string cannot hold as it is (a quote, a control
 * character, a backslash). The escapes it can vouch for are stepped over in
 * the module (a file's content holds one every line or so), a long string's
64 bytes at a time, without a branch per escape. And `large`, the
 * skim's whole scan of a tool call's line in one call: its structure followed
 * as JSON's grammar has it (objects, arrays, numbers, literals, escapes), its
 * strings searched with `string`, its large values found, a window at a
 * time. Tens of MB of file contents, command output and search matches in a
 * long log: in JavaScript, the scan's steps from token to token cost more
 * than the searches themselves.
 *
 * For the input layer (see input.ts), before it trusts a line's first key as
 * its type without parsing it: every place of a line that may say otherwise
 * (`places`), in one call, and the structure of a line followed up to one
 * (`walk`). And `run`: of a run of lines a reader lets by (their type, their
 * session and nothing else read), how many follow, each judged in one pass
 * of its bytes; `deltas`: of the text deltas of one session in a row, how
 * many follow, each compared with the delta's wrapping and its text checked
 * as the input layer checks it (where the reader has nothing to do with
 * them, JavaScript would spend more on each than on anything else).
 *
 * The module is written instruction by instruction in byte-scan-code.ts,
 * the layout of its memory is byte-scan-layout.ts; the skim and the input
 * layer each make one scan, on first use. Where WebAssembly or its SIMD is
 * not available (`node --jitless`), {@link makeByteScan} gives undefined: the
 * skim scans in JavaScript, with Buffer#indexOf, as it always could, and the
 * input layer with {@link placeAt} and {@link walkBytes}.
 */
import {
  DELTA_AREA,
  DELTA_HEAD,
  DELTA_MIDDLE,
  DELTA_TEXTS,
  DELTA_WORDS,
  FOUND,
  MAX_DELTA_HEAD,
  MAX_DELTA_MIDDLE,
  MAX_DELTAS,
  LARGE_SPANS,
  LARGE_STACK,
  LARGE_UNSURE,
  MAX_PLACES,
  MAX_SPANS,
  MAX_PREFIXES,
  MAX_TAIL,
  MORE,
  PAGE,
  PAGES,
  READ_BUFFERS,
  RUN_AREA,
  RUN_PREFIXES,
  RUN_TAIL,
  RUN_START_WINDOW,
  RUN_WORDS,
  STATE_BLOCK,
  STATE_WORDS,
  WINDOW,
} from './byte-scan-layout.js';
import { MODULE } from './byte-scan-module.js';
import { objectMayFollow } from './json-bytes.js';

export { LARGE_INVALID, LARGE_UNSURE, MAX_DEPTH, MAX_SPANS, PREFIX_PLAIN, WINDOW } from './byte-scan-layout.js';

/** The scan: {@link load} a line's bytes, then ask where each string ends. */
export interface ByteScan {
  /**
   * Makes `raw` the bytes scanned. They are copied into the module's memory a
   * window at a time, as the scan reaches them: that memory stays at one
   * window, whatever the length of the lines. Bytes in one of
   * {@link readBuffers} are scanned where they are, without a copy.
   */
  load(raw: Buffer): void;
  /**
   * Buffers of a window's size in the module's own memory (as many as the
   * scan was made with): a file read into one is scanned where it was read.
   */
  readonly readBuffers: readonly Buffer[];
  /**
   * The index of the first quote, byte below 0x20 or backslash in `[from,
   * end)` of the loaded bytes; `end` when none is. A backslash that starts a
   * valid JSON escape is stepped over with its escape: `\"`, `\\`, `\/`,
   * `\b`, `\f`, `\n`, `\r`, `\t`, and `\u` with four hex digits, but for
   * `\u0000`, which is left to the caller, as is an escape that may not end
   * before `end`. So the index given is the quote that closes a string, a
   * control byte, a backslash for the caller to judge, or `end`.
   */
  string(from: number, end: number): number;
  /**
   * Appends to `found` the index of every place in `[from, end)` of the
   * loaded bytes (`from` at least 1) that may make an event line's first key
   * other than its type (see input.ts): `"` with `y` 2 bytes on (`"type"`
   * perhaps) but for one right after `{`, `[` or `:`, which is no key of the
   * line; `\u0` (an escape that may spell a letter of `type`); and `}`
   * followed by `{` or by a byte below `!` other than a newline (perhaps
   * values glued together). A place is judged by the byte before it and the
   * 2 after it, read past `end` (beyond the bytes, whatever the memory
   * holds): a place is only one for the caller to check.
   */
  places(from: number, end: number, found: number[]): void;
  /**
   * Follows the structure of the loaded bytes `[from, to)` from `state` (0 at
   * the start of a line) and gives the state after them: how many objects
   * and arrays are open (never below 0), whether a string is, and whether
   * the last byte began an escape whose second byte is at `to` (the next
   * walk steps over it). See {@link walkDepth}, {@link walkInString},
   * {@link walkEscaped}.
   */
  walk(from: number, to: number, state: number): number;
  /**
   * The large values of the loaded bytes, as the skim's largeValues finds
   * them (see skim.ts), read a window at a time: their `[start, end)`
   * offsets are appended to `spans` in pairs, and their count given.
   * {@link LARGE_INVALID} when the bytes are not one JSON object the skim can
   * vouch for; {@link LARGE_UNSURE} when they nest more than
   * {@link MAX_DEPTH} deep, hold more than {@link MAX_SPANS} large values or
   * a number longer than a window: the caller judges them itself.
   */
  large(threshold: number, spans: number[]): number;
  /**
   * How many lines of the loaded bytes, from the one that starts at `from`,
   * a reader may let by in a run (see ReaderOptions.passes in input.ts):
   * lines each of which starts with one of `prefixes` (each its length, a
   * byte, then its bytes: `{"type":"thinking",` …; {@link PREFIX_PLAIN} set
   * in the length byte: the line must also hold none of `"tool_`, `\u` and
   * `{"type":"system"`), holds no place (see
   * {@link places}) that may make its first key not its type (a `}` then a
   * space, a `\u0` of no letter of `type`, are none) nor, past its first
   * byte, `{"type":"system"` (a run's first event glued on it: looked for in
   * the whole line, where {@link holdsRunStart} looks near its end), and ends with `}`
   * after members of plain keys and plain strings, numbers or literals, the
   * last `"session_id"` of them `tail` (`,"session_id":"…"`), as peekSession
   * reads a line's end. Of those lines, {@link lastRun} is where the last
   * starts, {@link nextRun} where the line after them starts. A line cut by
   * the end of the window moves the window to it. `prefixes` and `tail`
   * are copied into the module's memory when they are not the buffers of
   * the call before: do not change them in place.
   */
  run(from: number, prefixes: Buffer, tail: Buffer): number;
  /**
   * Whether the line `[start, end)` of the loaded bytes (its newline not in
   * it) holds `{"type":"system"` past its first byte, within
   * RUN_START_WINDOW of its end: a run's first event glued on it, as
   * holdsRunStart finds it (input.ts); `run` looks for it in the whole line.
   */
  holdsRunStart(start: number, end: number): boolean;
  /** After {@link run}: where the last line it let by starts (in the loaded bytes). */
  readonly lastRun: number;
  /** After {@link run}: where the first line it did not let by starts. */
  readonly nextRun: number;
  /**
   * How many lines of the loaded bytes, from the one that starts at `from`,
   * are text deltas of one session the input layer would join or let by
   * (see ReaderOptions.joinDeltas and passDeltas in input.ts): each `head`
   * (its bytes up to its text's opening quote),
   * a string {@link string} vouches for and its closing quote, `middle`
   * (the bytes after it up to the time, the session's id among them), a
   * time of digits (`0`, or up to 15 not starting with `0`), `}` and a
   * newline. For each, `[start, end)` of its text and its flags
   * (TEXT_ESCAPED, TEXT_ASCII) are appended to `texts`, when given. {@link
   * lastDelta} is where the last of them starts, {@link nextDelta} where the
   * line after them does, {@link timeStart} and {@link timeEnd} where the
   * last one's time is. Where the input layer would read a line otherwise
   * (a `\u0000` in the text, a time of other digits) the call stops, and
   * the reader reads that line itself. A line cut by the end of the window
   * moves the window to it. `head` and `middle` (16 bytes or more each) are
   * copied into the module's memory when they are not the buffers of the
   * call before: do not change them in place.
   */
  deltas(from: number, head: Buffer, middle: Buffer, texts?: number[]): number;
  /** After {@link deltas} read one or more: where the last one starts. */
  readonly lastDelta: number;
  /** After {@link deltas}: where the first line it did not read starts. */
  readonly nextDelta: number;
  /** After {@link deltas} read one or more: where the last one's time starts and ends. */
  readonly timeStart: number;
  readonly timeEnd: number;
}

/**
 * True when `raw[at]` is a place {@link ByteScan.places} finds, judged by the
 * bytes themselves (none before the first or past the last): where there is
 * no WebAssembly, and the reference the module is tested against.
 */
export function placeAt(raw: Uint8Array, at: number): boolean {
  const b = raw[at];
  const before = raw[at - 1];
  const next = raw[at + 1];
  // `{"t` but after a byte an object may follow, or a newline (a line's start).
  if (b === 0x7b) return next === 0x22 && raw[at + 2] === 0x74 && before !== 0x0a && !objectMayFollow(before);
  if (b === 0x22) return raw[at + 2] === 0x79 && before !== 0x7b && before !== 0x5b && before !== 0x3a;
  if (b === 0x5c) return next === 0x75 && raw[at + 2] === 0x30;
  return b === 0x7d && next !== undefined && (next === 0x7b || next === 0xef || (next < 0x21 && next !== 0x0a));
}

/** How many objects and arrays are open after a walk. */
export function walkDepth(state: number): number {
  return state >>> 2;
}

/** The bit of a walk's state set while a string is open: a walk's state from inside one, at depth 0. */
export const WALK_IN_STRING = 2;

/** True when a string is open after a walk. */
export function walkInString(state: number): boolean {
  return (state & WALK_IN_STRING) !== 0;
}

/** True when the byte after a walk is the second of an escape. */
export function walkEscaped(state: number): boolean {
  return (state & 1) !== 0;
}

/**
 * {@link ByteScan.walk} over `raw` itself, byte by byte: where there is no
 * WebAssembly, and the reference the module's walk is tested against.
 */
export function walkBytes(raw: Uint8Array, from: number, to: number, state: number): number {
  let depth = state >>> 2;
  let inString = (state & 2) !== 0;
  let i = (state & 1) !== 0 ? from + 1 : from;
  while (i < to) {
    const b = raw[i]!;
    if (inString) {
      if (b === 0x5c) {
        i += 2;
        continue;
      }
      if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) depth++;
    else if ((b === 0x7d || b === 0x5d) && depth > 0) depth--;
    i++;
  }
  return (depth << 2) | (inString ? WALK_IN_STRING : 0) | (i > to ? 1 : 0);
}

type Search = (from: number, end: number) => number;
type Walk = (from: number, to: number, state: number) => number;
type Places = (from: number, end: number, out: number) => number;
type Large = (base: number, limit: number, end: number) => number;
type Run = (from: number, end: number) => number;
type RunStart = (from: number, end: number) => number;
type Deltas = (from: number, end: number) => number;

class WasmScan implements ByteScan {
  private readonly memory: Uint8Array;
  private readonly found: Int32Array;
  /** The large values `large` found. */
  private readonly spans: Int32Array;
  /** `large`'s state between windows (see STATE_WORDS). */
  private readonly largeState: Int32Array;
  /** `run`'s words (see RUN_WORDS). */
  private readonly runWords: Int32Array;
  lastRun = -1;
  nextRun = 0;
  /** What {@link place} copied where, by the place in the memory. */
  private readonly placed = new Map<number, Buffer>();
  /** `deltas`' words (see DELTA_WORDS), and the texts it found. */
  private readonly deltaWords: Int32Array;
  private readonly deltaTexts: Int32Array;
  lastDelta = -1;
  nextDelta = 0;
  timeStart = 0;
  timeEnd = 0;
  private raw: Buffer = Buffer.alloc(0);
  /** `raw[base, base + size)` is in the memory at `at`: 0, where it is copied, or where it is, in a read buffer. */
  private base = 0;
  private size = 0;
  private at = 0;
  readonly readBuffers: readonly Buffer[];

  constructor(
    memory: WebAssembly.Memory,
    private readonly search: Search,
    private readonly placesSearch: Places,
    private readonly walkState: Walk,
    private readonly largeSearch: Large,
    private readonly runSearch: Run,
    private readonly deltaSearch: Deltas,
    private readonly runStartSearch: RunStart,
    readBuffers: number,
  ) {
    // A window, a page for what `places` reads past its end, a page of places found, `large`'s two pages, and that of `run` and `deltas`;
    // then the read buffers, and a page for what is read past the last. The memory never grows again: the buffers stay views of it.
    const pages = PAGES + (readBuffers > 0 ? (readBuffers * WINDOW) / PAGE + 1 : 0);
    memory.grow(pages - memory.buffer.byteLength / PAGE);
    this.memory = new Uint8Array(memory.buffer);
    this.readBuffers = Array.from({ length: readBuffers }, (_, k) => Buffer.from(memory.buffer, READ_BUFFERS + k * WINDOW, WINDOW));
    this.found = new Int32Array(memory.buffer, FOUND, MAX_PLACES);
    this.spans = new Int32Array(memory.buffer, LARGE_SPANS, 2 * MAX_SPANS);
    this.largeState = new Int32Array(memory.buffer, LARGE_STACK + STATE_BLOCK, Object.keys(STATE_WORDS).length);
    this.runWords = new Int32Array(memory.buffer, RUN_AREA, Object.keys(RUN_WORDS).length);
    this.deltaWords = new Int32Array(memory.buffer, DELTA_AREA, Object.keys(DELTA_WORDS).length);
    this.deltaTexts = new Int32Array(memory.buffer, DELTA_TEXTS, 3 * MAX_DELTAS);
  }

  /**
   * Copies `bytes` to `at` in the memory and their length into `words[word]`,
   * unless they are the buffer copied there last (`run`'s tail and prefixes,
   * `deltas`' head and middle: one tail for a whole run of calls).
   */
  private place(bytes: Buffer, at: number, words: Int32Array, word: number): void {
    if (this.placed.get(at) === bytes) return;
    this.memory.set(bytes, at);
    words[word] = bytes.length;
    this.placed.set(at, bytes);
  }

  deltas(from: number, head: Buffer, middle: Buffer, texts?: number[]): number {
    this.lastDelta = -1;
    this.nextDelta = from;
    if (head.length < 16 || head.length > MAX_DELTA_HEAD || middle.length < 16 || middle.length > MAX_DELTA_MIDDLE || from >= this.raw.length) return 0;
    if (from < this.base || from >= this.base + this.size) this.show(from);
    this.place(head, DELTA_HEAD, this.deltaWords, DELTA_WORDS.head);
    this.place(middle, DELTA_MIDDLE, this.deltaWords, DELTA_WORDS.middle);
    let count = 0;
    for (;;) {
      const found = this.deltaSearch(this.address(from), this.address(this.base + this.size));
      const words = this.deltaWords;
      const base = this.position(0);
      if (texts !== undefined) for (let k = 0; k < 3 * found; k += 3) texts.push(base + this.deltaTexts[k]!, base + this.deltaTexts[k + 1]!, this.deltaTexts[k + 2]!);
      if (found > 0) {
        this.lastDelta = base + words[DELTA_WORDS.last]!;
        this.timeStart = base + words[DELTA_WORDS.timeStart]!;
        this.timeEnd = base + words[DELTA_WORDS.timeEnd]!;
      }
      count += found;
      this.nextDelta = base + words[DELTA_WORDS.next]!;
      // A line cut by the window's end (or a full page of texts): the window moves to it, unless it starts there (a line longer than a window).
      if ((words[DELTA_WORDS.cut] === 0 && found < MAX_DELTAS) || this.base + this.size >= this.raw.length || this.nextDelta === this.base) return count;
      from = this.nextDelta;
      this.show(from);
    }
  }

  run(from: number, prefixes: Buffer, tail: Buffer): number {
    this.lastRun = -1;
    this.nextRun = from;
    if (tail.length > MAX_TAIL || prefixes.length > MAX_PREFIXES || from >= this.raw.length) return 0;
    if (from < this.base || from >= this.base + this.size) this.show(from);
    this.place(tail, RUN_TAIL, this.runWords, RUN_WORDS.tail);
    this.place(prefixes, RUN_PREFIXES, this.runWords, RUN_WORDS.prefixes);
    let count = 0;
    for (;;) {
      const found = this.runSearch(this.address(from), this.address(this.base + this.size));
      count += found;
      const base = this.position(0);
      if (found > 0) this.lastRun = base + this.runWords[RUN_WORDS.last]!;
      this.nextRun = base + this.runWords[RUN_WORDS.next]!;
      // A line cut by the window's end: the window moves to it, unless it starts there (a line longer than a window).
      if (this.runWords[RUN_WORDS.cut] === 0 || this.base + this.size >= this.raw.length || this.nextRun === this.base) return count;
      from = this.nextRun;
      this.show(from);
    }
  }

  large(threshold: number, spans: number[]): number {
    const state = this.largeState;
    state.fill(0);
    state[STATE_WORDS.threshold] = threshold;
    // `large` reads its window at the memory's start: the bytes are copied there.
    if (this.base !== 0 || this.at !== 0) this.show(0, false);
    for (;;) {
      const count = this.largeSearch(this.base, this.base + this.size, this.raw.length);
      if (count === MORE) {
        // The scan stopped at i, near the window's end: the window moves there, unless it starts there (a token longer than a window).
        const at = state[STATE_WORDS.i]!;
        if (at <= this.base) return LARGE_UNSURE;
        this.show(at, false);
        continue;
      }
      for (let k = 0; k < 2 * count; k++) spans.push(this.spans[k]!);
      return count;
    }
  }

  load(raw: Buffer): void {
    this.raw = raw;
    this.show(0);
  }

  string(from: number, end: number): number {
    for (;;) {
      if (from >= end) return end;
      if (from < this.base || from >= this.base + this.size) this.show(from);
      const stop = Math.min(end, this.base + this.size);
      const at = this.position(this.search(this.address(from), this.address(stop)));
      if (at < stop) return at;
      from = stop;
    }
  }

  holdsRunStart(start: number, end: number): boolean {
    // The module looks from the byte after `from`, and no further back than RUN_START_WINDOW from `end`.
    const from = Math.max(start, end - RUN_START_WINDOW - 1);
    if (from < this.base || end > this.base + this.size) this.show(from);
    return this.runStartSearch(this.address(from), this.address(end)) !== 0;
  }

  places(from: number, end: number, found: number[]): void {
    while (from < end) {
      // The window holds the byte before the place and, but at the end of the bytes, the 2 after it.
      const windowEnd = this.base + this.size;
      if (from - 1 < this.base || (from + 2 >= windowEnd && windowEnd < this.raw.length)) this.show(from - 1);
      let stop = Math.min(end, this.base + this.size);
      if (stop < end) stop -= 2;
      const count = this.placesSearch(this.address(from), this.address(stop), FOUND);
      const base = this.position(0);
      for (let k = 0; k < count; k++) found.push(base + this.found[k]!);
      // A full page of places: the search goes on after the last.
      from = count === MAX_PLACES ? found[found.length - 1]! + 1 : stop;
    }
  }

  walk(from: number, to: number, state: number): number {
    for (;;) {
      if (from >= to) return state;
      if (from < this.base || from >= this.base + this.size) this.show(from);
      const stop = Math.min(to, this.base + this.size);
      state = this.walkState(this.address(from), this.address(stop), state);
      if (stop === to) return state;
      from = stop;
    }
  }

  /** The address in the memory of a position in the bytes, in the window. */
  private address(position: number): number {
    return this.at + position - this.base;
  }

  /** The position in the bytes of an address in the memory (`position(0)`: add it to an address). */
  private position(address: number): number {
    return this.base - this.at + address;
  }

  /**
   * Makes the window the bytes from `from`: where they are when they are in
   * one of the read buffers (unless `inPlace` is false), else copied to the
   * memory's start.
   */
  private show(from: number, inPlace = true): void {
    const raw = this.raw;
    this.base = from;
    this.size = Math.min(WINDOW, raw.length - from);
    if (inPlace && raw.buffer === this.memory.buffer) {
      this.at = raw.byteOffset + from;
      return;
    }
    this.at = 0;
    this.memory.set(raw.subarray(from, from + this.size));
  }
}

/**
 * A new scan with a memory of its own, and `readBuffers` read buffers in it
 * (see ByteScan.readBuffers); undefined where WebAssembly SIMD is not
 * available.
 */
export function makeByteScan(readBuffers = 0): ByteScan | undefined {
  try {
    const exports = new WebAssembly.Instance(new WebAssembly.Module(MODULE)).exports as {
      memory: WebAssembly.Memory;
      string: Search;
      places: Places;
      walk: Walk;
      large: Large;
      run: Run;
      deltas: Deltas;
      runStart: RunStart;
    };
    return new WasmScan(exports.memory, exports.string, exports.places, exports.walk, exports.large, exports.run, exports.deltas, exports.runStart, readBuffers);
  } catch {
    return undefined;
  }
}
