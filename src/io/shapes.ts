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

/** A line shape: its skeleton, `%s` for a string value and `%n` for a number, and how its event is built. */
export interface LineShape {
  /** The event type its lines start with (`{"type":"…"`). */
  readonly type: string;
  /** The compact JSON of the line, each value left out written `%s` (a string) or `%n` (a number). */
  readonly skeleton: string;
  /** The event, from the slots' values in order: the object `JSON.parse` gives for such a line. */
  build(values: unknown[]): AgentEvent;
}

/** A shape ready to match: the skeleton's bytes between the slots. */
interface CompiledShape {
  pieces: Buffer[];
  /** True for a string slot, false for a number. */
  strings: boolean[];
  build(values: unknown[]): AgentEvent;
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
    list.push({ pieces, strings, build: shape.build });
    byType.set(shape.type, list);
  }
  return byType;
}


/** Where the value of one slot ended (the index after it); set by the readers below. */
let valueEnd = 0;

/**
 * The string whose opening quote is `raw[at]`, or undefined when there is
 * none there or it is not valid JSON. Sets {@link valueEnd}.
 */
function readString(raw: Buffer, at: number): string | undefined {
  if (raw[at] !== 0x22) return undefined;
  const n = raw.length;
  let escaped = false;
  let ascii = true;
  let i = at + 1;
  for (; i < n; i++) {
    const b = raw[i]!;
    if (b === 0x22) break;
    if (b === 0x5c) {
      escaped = true;
      const end = escapeEnd(raw, i);
      if (end === -1) return undefined;
      i = end - 1;
    } else if (b < 0x20) {
      return undefined;
    } else if (b >= 0x80) {
      ascii = false;
    }
  }
  if (i >= n) return undefined;
  valueEnd = i + 1;
  // Escapes are decoded by JSON.parse itself, on the string alone; plain bytes are decoded as the full parse decodes them.
  if (escaped) return JSON.parse(raw.toString('utf8', at, i + 1)) as string;
  return ascii ? raw.toString('latin1', at + 1, i) : raw.toString('utf8', at + 1, i);
}

/** The number that starts at `raw[at]` (JSON's grammar), or undefined. Sets {@link valueEnd}. */
function readNumber(raw: Buffer, at: number): number | undefined {
  const end = numberEnd(raw, at);
  if (end === -1) return undefined;
  valueEnd = end;
  const digits = raw[at] === 0x2d ? at + 1 : at;
  if (end - digits <= 15) {
    // Digits only (no fraction, no exponent), few enough to be exact in a double: the sum is the value JSON.parse gives.
    let value = 0;
    let k = digits;
    for (; k < end; k++) {
      const d = raw[k]! - 0x30;
      if (d < 0 || d > 9) break;
      value = value * 10 + d;
    }
    if (k === end) return raw[at] === 0x2d ? -value : value;
  }
  return Number(raw.toString('latin1', at, end));
}

/**
 * The event of a line of one of `shapes` for its type (as the line's start
 * names it), or undefined when the line is not exactly of any of them.
 */
export function parseShape(shapes: Map<string, CompiledShape[]>, type: string, raw: Buffer): AgentEvent | undefined {
  const candidates = shapes.get(type);
  if (candidates === undefined) return undefined;
  next: for (const shape of candidates) {
    const { pieces, strings } = shape;
    const values: unknown[] = [];
    let at = 0;
    for (let k = 0; k < strings.length; k++) {
      const piece = pieces[k]!;
      if (!sameBytes(raw, at, piece)) continue next;
      at += piece.length;
      const value = strings[k] ? readString(raw, at) : readNumber(raw, at);
      if (value === undefined) continue next;
      values.push(value);
      at = valueEnd;
    }
    const last = pieces[pieces.length - 1]!;
    if (at + last.length !== raw.length || !sameBytes(raw, at, last)) continue;
    return shape.build(values);
  }
  return undefined;
}
