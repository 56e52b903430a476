/**
 * JSON text of parsed values, whatever their depth. `JSON.parse` reads values
 * nested to any depth (a hostile line of 100,000 `[`), while `JSON.stringify`,
 * being recursive, overflows the stack past a few thousand levels. These write
 * the same text as `JSON.stringify` (sorted keys aside), falling back to an
 * explicit stack when recursion runs out, so a deep value is written, not a
 * crash.
 */
import { isObject } from './events.js';
import { closingQuoteOf } from './io/json-bytes.js';

function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/**
 * A value that is neither array nor object, as canonical JSON writes it: as
 * `JSON.stringify` does, but for a number too large for a double (`1e400`,
 * which `JSON.parse` reads as Infinity), written `1e999` (`-1e999`) rather
 * than `null`, so that it is not taken for `null`.
 */
function canonicalLeaf(value: unknown): string {
  if (value === Infinity) return '1e999';
  if (value === -Infinity) return '-1e999';
  return JSON.stringify(value) ?? 'null';
}

/**
 * How a value is written: as `JSON.stringify` writes it (`null` where it
 * would write nothing); `exact`, the same but for numbers too large for a
 * double (see {@link canonicalLeaf}); `canonical`, exact with object keys
 * sorted.
 */
type Mode = 'stringify' | 'exact' | 'canonical';

/** A value written as `mode` says, recursively. */
function recursive(value: unknown, mode: Mode): string {
  if (mode === 'stringify') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => recursive(v, mode)).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (mode === 'canonical') keys.sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${recursive(value[k], mode)}`).join(',')}}`;
  }
  return canonicalLeaf(value);
}

interface Frame {
  array?: readonly unknown[];
  object?: Record<string, unknown>;
  keys?: string[];
  next: number;
}

/** The same text as {@link recursive}, with an explicit stack: no depth limit but memory. */
function iterative(root: unknown, mode: Mode): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  let value = root;
  for (;;) {
    if (Array.isArray(value)) {
      out.push('[');
      stack.push({ array: value, next: 0 });
    } else if (isObject(value)) {
      out.push('{');
      const keys = Object.keys(value);
      if (mode === 'canonical') keys.sort();
      stack.push({ object: value, keys, next: 0 });
    } else {
      out.push(mode === 'stringify' ? (JSON.stringify(value) ?? 'null') : canonicalLeaf(value));
    }
    // The next value to write, closing the containers that are done.
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) return out.join('');
      if (top.array) {
        if (top.next < top.array.length) {
          if (top.next > 0) out.push(',');
          value = top.array[top.next++];
          break;
        }
        out.push(']');
      } else {
        const keys = top.keys!;
        if (top.next < keys.length) {
          const key = keys[top.next];
          out.push(top.next++ > 0 ? ',' : '', JSON.stringify(key), ':');
          value = top.object![key!];
          break;
        }
        out.push('}');
      }
      stack.pop();
    }
  }
}

/** True for the characters a JSON number is written with after its first: digits, `.`, `e`, `E`, `+`, `-`. */
function inNumber(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

/**
 * `text`, one JSON value, read as JSON.parse reads it but with each number
 * the string of its text as written (`1.50` is `"1.50"`), for
 * {@link writtenJsonText}; undefined when `text` is not JSON. One pass over
 * the text (its strings stepped over with indexOf), then JSON.parse: the
 * cost of reading the value again.
 */
export function writtenNumbers(text: string): unknown {
  const parts: string[] = [];
  const n = text.length;
  let from = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to the quote that closes it.
      const end = closingQuoteOf(text, i);
      if (end === -1) return undefined;
      i = end + 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < n && inNumber(text.charCodeAt(end))) end++;
      parts.push(text.slice(from, i), '"', text.slice(i, end), '"');
      from = i = end;
    } else {
      i++;
    }
  }
  parts.push(text.slice(from));
  try {
    return JSON.parse(parts.join(''));
  } catch {
    return undefined;
  }
}

/** True when `value` is a number or holds one, at any depth. */
export function holdsNumber(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number') return true;
    if (Array.isArray(v)) for (const e of v) stack.push(e);
    else if (isObject(v)) for (const k in v) stack.push(v[k]);
  }
  return false;
}

/** True when `written` (read by {@link writtenNumbers}) is `value` read again: its shape, keys in order, strings alike, each number a text that reads as it. */
function sameWritten(value: unknown, written: unknown): boolean {
  if (typeof value === 'number') return typeof written === 'string' && Object.is(Number(written), value);
  if (Array.isArray(value)) return Array.isArray(written) && written.length === value.length && value.every((v, i) => sameWritten(v, written[i]));
  if (isObject(value)) {
    if (!isObject(written)) return false;
    const keys = Object.keys(value);
    const writtenKeys = Object.keys(written);
    return writtenKeys.length === keys.length && keys.every((k, i) => writtenKeys[i] === k && sameWritten(value[k], written[k]));
  }
  return value === written;
}

/**
 * The value within `written` (a value read by {@link writtenNumbers}: an
 * event read again) that is `value` (a value of that event) read again, for
 * {@link writtenJsonText}: the first found, depth first; undefined when
 * none is, or when the values nest too deep to be compared.
 */
export function writtenTwin(value: unknown, written: unknown): unknown {
  try {
    const stack = [written];
    while (stack.length > 0) {
      const w = stack.pop();
      if (sameWritten(value, w)) return w;
      if (Array.isArray(w)) for (let i = w.length - 1; i >= 0; i--) stack.push(w[i]);
      else if (isObject(w)) {
        const keys = Object.keys(w);
        for (let i = keys.length - 1; i >= 0; i--) stack.push(w[keys[i]!]);
      }
    }
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
  }
  return undefined;
}

/** {@link writtenJsonText}, recursively. */
function withWritten(value: unknown, written: unknown): string {
  if (Array.isArray(value)) {
    const w = Array.isArray(written) ? written : undefined;
    return `[${value.map((v, i) => withWritten(v, w?.[i])).join(',')}]`;
  }
  if (isObject(value)) {
    const w = isObject(written) ? written : undefined;
    const members = Object.keys(value).map((k) => `${JSON.stringify(k)}:${withWritten(value[k], w !== undefined && Object.hasOwn(w, k) ? w[k] : undefined)}`);
    return `{${members.join(',')}}`;
  }
  // A spelling is taken only where it reads as the very number parsed (`-0` as -0): never another value's.
  if (typeof value === 'number' && typeof written === 'string' && Object.is(Number(written), value)) return written;
  return canonicalLeaf(value);
}

/**
 * `value`'s JSON text as {@link exactJsonText} writes it, but each number as
 * `written` spells it: `written` is the same value read again by
 * {@link writtenNumbers}, each number the string of its text. So `1.50`,
 * `12345678901234567890` and `-0` are written as they were, not as the
 * doubles `JSON.parse` made of them (`1.5`, `12345678901234567000`, `0`), as
 * jq 1.7 writes a number it did not compute. A number whose spelling is not
 * found there at the same place is written as exactJsonText writes it; so is
 * all of a value nested too deep for recursion.
 */
export function writtenJsonText(value: unknown, written: unknown): string {
  try {
    return withWritten(value, written);
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
  }
  return iterative(value, 'exact');
}

/** A value's JSON text, as `mode` says: recursion while the stack lasts, then the explicit stack. */
function anyDepth(value: unknown, mode: Mode): string {
  try {
    return recursive(value, mode);
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
  }
  return iterative(value, mode);
}

/** `JSON.stringify(value)` for a parsed value, at any depth. */
export function jsonText(value: unknown): string {
  return anyDepth(value, 'stringify');
}

/**
 * A parsed value's JSON text, keys in their order, at any depth, that
 * `JSON.parse` reads as the same value: a number too large for a double is
 * `1e999`, not the `null` of `JSON.stringify` (see {@link canonicalLeaf}).
 */
export function exactJsonText(value: unknown): string {
  return anyDepth(value, 'exact');
}

/** A parsed value as canonical JSON (object keys sorted, Infinity not `null`: see {@link canonicalLeaf}), at any depth. */
export function canonicalJsonText(value: unknown): string {
  return anyDepth(value, 'canonical');
}
