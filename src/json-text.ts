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

/**
 * `value`, a value of `root`, read again: the value at its place in
 * `written()`, `root` read by {@link writtenNumbers} (each number the string
 * of its text), for {@link writtenJsonText}. Found by the place of the very
 * object or array `value` is (not by what it holds: two alike, `1.0` and
 * `1`, are two); undefined for a value that is no object or array of `root`.
 * Given `key`, the member `key` of `value` read again (a number, a string:
 * a value found by the place of the object holding it).
 * The places of `root`'s values, and `written()`, are read at the first
 * call, once for all.
 */
export function writtenPlaces(root: unknown, written: () => unknown): (value: unknown, key?: string) => unknown {
  let places: Map<object, [object, string | number]> | undefined;
  let tree: unknown;
  let read = false;
  const again = (): unknown => {
    if (!read) {
      read = true;
      tree = written();
    }
    return tree;
  };
  const find = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return undefined;
    if (value === root) return again();
    places ??= placesOf(root);
    const steps: Array<string | number> = [];
    for (let at = places.get(value); at !== undefined; at = places.get(at[0])) steps.push(at[1]);
    if (steps.length === 0) return undefined;
    let twin = again();
    for (let i = steps.length - 1; i >= 0 && twin !== undefined; i--) {
      const step = steps[i]!;
      twin = typeof step === 'number' ? (Array.isArray(twin) ? twin[step] : undefined) : memberOf(twin, step);
    }
    return twin;
  };
  return (value, key) => (key === undefined ? find(value) : memberOf(find(value), key));
}

/** The member `key` of `value`, an object; undefined for anything else. */
function memberOf(value: unknown, key: string): unknown {
  return isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

/** Each object and array within `root`, with the object or array it is in and its key or index there. */
function placesOf(root: unknown): Map<object, [object, string | number]> {
  const places = new Map<object, [object, string | number]>();
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const e: unknown = v[i];
        if (typeof e === 'object' && e !== null) {
          places.set(e, [v, i]);
          stack.push(e);
        }
      }
    } else if (isObject(v)) {
      for (const k of Object.keys(v)) {
        const e = v[k];
        if (typeof e === 'object' && e !== null) {
          places.set(e, [v, k]);
          stack.push(e);
        }
      }
    }
  }
  return places;
}

// A number JSON.stringify may write otherwise than the text did: with a fraction or an exponent, of 16 digits or more
// (a double holds every integer of 15), or -0. Where one is, a value written again is read again (see writtenPlaces); a
// false alarm, in a string, costs only that.
const SPELLED_NUMBER = /[:,[][ \t\r\n]*(?:-0(?![.eE\d])|-?\d+[.eE]|-?\d{16})/;

/** False when no number of the JSON text `text` (its bytes, or itself) is written otherwise by JSON.stringify: its values need not be read again to be written as it writes them. */
export function maySpellNumbers(text: Buffer | string): boolean {
  return SPELLED_NUMBER.test(typeof text === 'string' ? text : text.toString('latin1'));
}

const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The number written `text` as JavaScript writes a number (see
 * Number.prototype.toString: `1.5`, `0.001`, `1e+30`, `1.5e-7`), but with
 * every digit the text gives, not those of the nearest double:
 * `12345678901234567890`, `0.1000000000000000055511151231257827`.
 * Undefined for text that is no JSON number.
 */
export function decimalText(text: string): string | undefined {
  const m = NUMBER_TEXT.exec(text);
  if (m === null) return undefined;
  let digits = m[2]! + (m[3] ?? '');
  // The value is 0.digits × 10^point.
  let point = m[2]!.length + Number(m[4] ?? 0);
  const lead = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(lead).replace(/0+$/, '');
  point -= lead;
  if (digits === '' || !Number.isSafeInteger(point)) return digits === '' ? '0' : undefined;
  const sign = m[1]!;
  const k = digits.length;
  if (k <= point && point <= 21) return sign + digits + '0'.repeat(point - k);
  if (0 < point && point <= 21) return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  if (-6 < point && point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  const e = point - 1;
  return `${sign}${digits[0]}${k === 1 ? '' : `.${digits.slice(1)}`}e${e < 0 ? '-' : '+'}${Math.abs(e)}`;
}

/**
 * An id given as the number `n`: its text as JavaScript writes it, unless
 * `written`, its text in the stream, is another decimal than that, which a
 * double does not hold exactly (`12345678901234567890` and
 * `12345678901234567891` are one double, two ids; so are `1` and
 * `1.00000000000000000001`): that decimal then (see decimalText). `1.0`,
 * `1.50` and `1e2` are the ids `1`, `1.5` and `100`.
 */
export function numberId(n: number, written: unknown): string {
  const plain = String(n);
  if (typeof written !== 'string' || !Object.is(Number(written), n)) return plain;
  return decimalText(written) ?? plain;
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
