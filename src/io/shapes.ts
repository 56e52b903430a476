/**
 * Lines of a known shape, parsed without `JSON.parse`.
 *
 * With partial output, most lines of a stream are deltas of a few words, each
 * in the same wrapping: `{"type":"thinking","subtype":"delta","text":"…",
 * "session_id":"…","timestamp_ms":…}`. A {@link LineShape} is that wrapping
 * written once as a skeleton, its values left as slots. {@link parseShape}
 * compares a line's bytes with the skeleton's, reads each slot's value
 * (checking it as strictly as `JSON.parse` does: escapes, control
 * characters, the grammar of numbers), and builds the event the shape's
 * `build` makes, which is the object `JSON.parse` gives for that line.
 *
 * A line that differs from the skeleton by one byte (a space, another key
 * order, one more field) is not of that shape, and is parsed in full: the
 * match is exact or nothing, so it never changes what a line reads as.
 */
import type { AgentEvent } from '../events.js';
import { escapeEnd, numberEnd, sameBytes } from './json-bytes.js';
import { TEXT_ASCII, TEXT_ESCAPED } from './byte-scan-layout.js';

/** A line shape: its skeleton, `%s` for a string value and `%n` for a number, and how its event is built. */
export interface LineShape {
  /** The event type its lines start with (`{"type":"…"`). */
  readonly type: string;
  /** The compact JSON of the line, each value left out written `%s` (a string) or `%n` (a number). */
  readonly skeleton: string;
  /** The event, from the slots' values in order: the object `JSON.parse` gives for such a line. */
  build(values: unknown[]): AgentEvent;
  /**
   * Its lines are text deltas: its slots are the text, the session id and
   * the time. Several such lines of one session in a row may be read as one
   * with their texts joined, or let by (see ReaderOptions.joinDeltas and
   * passDeltas).
   */
  readonly delta?: boolean;
}

/** A shape ready to match: the skeleton's bytes between the slots. */
export interface CompiledShape {
  pieces: Buffer[];
  /** True for a string slot, false for a number. */
  strings: boolean[];
  /**
   * How many of its first slots it shares with the shape before it of its
   * type: the same bytes before each, the same kind of value. A line matched
   * that far by that shape is not matched again up to there (the assistant
   * messages' three shapes differ only after the text and the session).
   */
  shared: number;
  build(values: unknown[]): AgentEvent;
  delta: boolean;
}

/** How many first slots `shape` shares with `before` (see CompiledShape.shared). */
function sharedSlots(before: CompiledShape | undefined, pieces: Buffer[], strings: boolean[]): number {
  if (before === undefined) return 0;
  let k = 0;
  while (k < strings.length && k < before.strings.length && strings[k] === before.strings[k] && pieces[k]!.equals(before.pieces[k]!)) k++;
  return k;
}

/** Compiles shapes, by type. */
export function compileShapes(shapes: readonly LineShape[]): Map<string, CompiledShape[]> {
  const byType = new Map<string, CompiledShape[]>();
  for (const shape of shapes) {
    const parts = shape.skeleton.split(/(%[sn])/);
    const pieces: Buffer[] = [];
    const strings: boolean[] = [];
    for (let i = 0; i < parts.length; i++) {
      if (i % 2 === 0) pieces.push(Buffer.from(parts[i]!));
      else strings.push(parts[i] === '%s');
    }
    const list = byType.get(shape.type) ?? [];
    list.push({ pieces, strings, shared: sharedSlots(list[list.length - 1], pieces, strings), build: shape.build, delta: shape.delta === true });
    byType.set(shape.type, list);
  }
  return byType;
}

/**
 * What stringEnd found of the string it checked last, flags of how it is
 * decoded (the byte scan's `deltas` writes the same): TEXT_ESCAPED when it
 * holds escapes, TEXT_ASCII when it is all ASCII.
 */
let stringFlags = 0;

/**
 * Where the string whose opening quote is `raw[at]` ends (the index after its
 * closing quote), checking it as JSON.parse would; -1 when there is none there
 * or it is not valid JSON. Sets {@link stringFlags}.
 */
function stringEnd(raw: Buffer, at: number): number {
  if (raw[at] !== 0x22) return -1;
  const n = raw.length;
  let flags = TEXT_ASCII;
  for (let i = at + 1; i < n; i++) {
    const b = raw[i]!;
    if (b === 0x22) {
      stringFlags = flags;
      return i + 1;
    }
    if (b === 0x5c) {
      flags |= TEXT_ESCAPED;
      const end = escapeEnd(raw, i);
      if (end === -1) return -1;
      i = end - 1;
    } else if (b < 0x20) {
      return -1;
    } else if (b >= 0x80) {
      flags &= ~TEXT_ASCII;
    }
  }
  return -1;
}

/**
 * The string `raw[start, end)` (quotes included), decoded as the full parse
 * decodes it; `flags`: TEXT_ESCAPED when it holds escapes, TEXT_ASCII when
 * it is all ASCII.
 */
export function stringValue(raw: Buffer, start: number, end: number, flags: number): string {
  // Escapes are decoded by JSON.parse itself, on the string alone.
  if (flags & TEXT_ESCAPED) return JSON.parse(raw.toString('utf8', start, end)) as string;
  return raw.toString(flags & TEXT_ASCII ? 'latin1' : 'utf8', start + 1, end - 1);
}

/** The number `raw[start, end)`, checked by numberEnd: its value as JSON.parse gives it. */
export function numberValue(raw: Buffer, start: number, end: number): number {
  const digits = raw[start] === 0x2d ? start + 1 : start;
  if (end - digits <= 15) {
    // Digits only (no fraction, no exponent), few enough to be exact in a double: the sum is the value JSON.parse gives.
    let value = 0;
    let k = digits;
    for (; k < end; k++) {
      const d = raw[k]! - 0x30;
      if (d < 0 || d > 9) break;
      value = value * 10 + d;
    }
    if (k === end) return raw[start] === 0x2d ? -value : value;
  }
  return Number(raw.toString('latin1', start, end));
}

/** Each slot of the shape matched last: its start, its end, its string flags. */
const slots: number[] = [];

/** The shape of `candidates` the line `raw` is exactly of, its slots' places kept for {@link slotValue}; undefined when none. */
export function matchShape(candidates: readonly CompiledShape[], raw: Buffer): CompiledShape | undefined {
  // How many first slots the shape tried before matched: one that shares them starts after them.
  let matched = 0;
  next: for (const shape of candidates) {
    const { pieces, strings } = shape;
    let k = Math.min(shape.shared, matched);
    let at = k === 0 ? 0 : slots[3 * k - 2]!;
    for (; k < strings.length; k++) {
      const piece = pieces[k]!;
      const end = sameBytes(raw, at, piece) ? (strings[k] ? stringEnd(raw, at + piece.length) : numberEnd(raw, at + piece.length)) : -1;
      if (end === -1) {
        matched = k;
        continue next;
      }
      // Written in place, never emptied: setting an array's length is a call into the runtime.
      slots[3 * k] = at + piece.length;
      slots[3 * k + 1] = end;
      slots[3 * k + 2] = stringFlags;
      at = end;
    }
    matched = k;
    const last = pieces[pieces.length - 1]!;
    if (at + last.length !== raw.length || !sameBytes(raw, at, last)) continue;
    return shape;
  }
  return undefined;
}

/** The value of slot `k` of the shape {@link matchShape} matched last in `raw`, decoded as the full parse decodes it. */
export function slotValue(shape: CompiledShape, raw: Buffer, k: number): string | number {
  const start = slots[3 * k]!;
  const end = slots[3 * k + 1]!;
  return shape.strings[k] ? stringValue(raw, start, end, slots[3 * k + 2]!) : numberValue(raw, start, end);
}

/** Where slot `k` of the shape matched last is in the line: `[start, end)`, quotes included for a string. */
export function slotStart(k: number): number {
  return slots[3 * k]!;
}

/** See {@link slotStart}. */
export function slotEnd(k: number): number {
  return slots[3 * k + 1]!;
}

/**
 * The event of a line of one of `shapes` for its type (as the line's start
 * names it), or undefined when the line is not exactly of any of them.
 */
export function parseShape(shapes: Map<string, CompiledShape[]>, type: string, raw: Buffer): AgentEvent | undefined {
  const candidates = shapes.get(type);
  if (candidates === undefined) return undefined;
  const shape = matchShape(candidates, raw);
  if (shape === undefined) return undefined;
  // The whole line is of this shape: only now are its values decoded.
  const values: unknown[] = [];
  for (let k = 0; k < shape.strings.length; k++) values.push(slotValue(shape, raw, k));
  return shape.build(values);
}
