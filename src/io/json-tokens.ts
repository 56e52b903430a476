/**
 * stream-json's tokenizer as the project reads JSON text with it: the input
 * layer's slow path (values spread over lines, glued together), and a
 * function call's arguments read again keeping the first value of a key
 * given twice (see firstValues).
 */
import { jsonParser } from 'stream-json/parser.js';
import Assembler from 'stream-json/assembler.js';
import { closingQuoteOf, isJsonSpace, parseNested } from './json-bytes.js';

/** What ends the tokenizer's input: the value it holds is read to its end. */
export const NONE = Symbol.for('object-stream.none');
export type Token = { name: string; value?: unknown };
export type TokenFn = (input: string | symbol) => unknown;

/** The tokens of what a {@link TokenFn} returned. */
export function tokensOf(result: unknown): Token[] {
  if (result && typeof result === 'object' && Array.isArray((result as { values?: unknown }).values)) {
    return (result as { values: Token[] }).values;
  }
  return [];
}

/**
 * The tokenizer: values one after another, each string's start and end told
 * (`startString`, its `stringChunk`s, `endString`), keys, strings and
 * numbers whole too (`keyValue`, `stringValue`, `numberValue`).
 *
 * Keys and strings are made whole here, from their pieces, not by
 * stream-json, which appends each piece to the string it makes: a string of
 * many escapes (`\"\"\"…`, a file of JSON quoted in a tool's output) comes in
 * pieces of one character, and a string so made, of millions, took V8's
 * collector most of the run (a line of 12 MB cut short in such a string: 7.4 s
 * and 530 MB, against 0.6 s for one of plain letters).
 */
export function tokenizer(): TokenFn {
  const parse = jsonParser({
    jsonStreaming: true,
    packKeys: false,
    packStrings: false,
    packNumbers: true,
    streamKeys: true,
    streamStrings: true,
    streamNumbers: false,
  }) as unknown as TokenFn;
  const pieces = new Pieces();
  let inKey = false;
  return (input) => {
    const tokens = tokensOf(parse(input));
    const out: Token[] = [];
    for (const token of tokens) {
      switch (token.name) {
        case 'startKey':
          inKey = true;
          pieces.clear();
          continue;
        case 'endKey':
          inKey = false;
          out.push({ name: 'keyValue', value: pieces.take() });
          continue;
        case 'startString':
          pieces.clear();
          break;
        case 'stringChunk':
          pieces.add(token.value as string);
          if (inKey) continue;
          break;
        case 'endString':
          out.push(token, { name: 'stringValue', value: pieces.take() });
          continue;
      }
      out.push(token);
    }
    return { values: out };
  };
}

/** A string made of pieces, joined a thousand at a time, then at its end. */
class Pieces {
  private blocks: string[] = [];
  private pieces: string[] = [];

  clear(): void {
    this.blocks = [];
    this.pieces = [];
  }

  add(piece: string): void {
    this.pieces.push(piece);
    if (this.pieces.length === 1024) {
      this.blocks.push(this.pieces.join(''));
      this.pieces = [];
    }
  }

  take(): string {
    const whole = this.blocks.length === 0 ? this.pieces.join('') : this.blocks.join('') + this.pieces.join('');
    this.clear();
    return whole;
  }
}

/**
 * How much text the tokenizer is given at once where a long text is read in
 * pieces (see tokenizeInSlices): its tokens, an object each for a few bytes
 * of text, are made and let go a piece at a time.
 */
export const TOKEN_SLICE = 1 << 12;

/**
 * Feeds `text` to `tokenize` {@link TOKEN_SLICE} characters at a time,
 * handing each piece's tokens to `each`: the tokens of a line of many MiB,
 * made at once, took several times the memory of the values they make. The
 * tokenizer reads its input as a stream, so the tokens are those of the
 * whole text; what it throws, this throws, the pieces before handed on.
 */
export function tokenizeInSlices(tokenize: TokenFn, text: string, each?: (tokens: Token[]) => void): void {
  for (let at = 0; at < text.length; at += TOKEN_SLICE) {
    const tokens = tokensOf(tokenize(text.slice(at, at + TOKEN_SLICE)));
    each?.(tokens);
  }
}

/**
 * `text`, JSON that gives a key twice in one object, read as JSON.parse reads
 * it but keeping the first value of such a key (JSON.parse keeps the last);
 * undefined when `text` gives no key twice, or is not JSON. Read by tokens,
 * as deep as JSON.parse reads.
 */
export function firstValues(text: string): unknown {
  if (!mayRepeatKey(text)) return undefined;
  try {
    // (Nested too deep to read, it is no JSON to the tools either: see MAX_DEPTH.)
    parseNested(text);
  } catch {
    return undefined;
  }
  let repeated = false;
  // The reviver is told each member before it is set: one of a key set already, to another value, is left out. (The
  // whole value comes last, under the key '' of a holder made for it, and is kept.)
  const assembler = new Assembler({
    reviver(this: Record<string, unknown> | unknown[], key: string, value: unknown): unknown {
      if (Array.isArray(this) || !Object.hasOwn(this, key) || this[key] === value) return value;
      repeated = true;
      return undefined;
    },
  });
  const tokenize = tokenizer();
  const consume = (tokens: Token[]): void => {
    for (const token of tokens) assembler.consume(token as never);
  };
  tokenizeInSlices(tokenize, text, consume);
  consume(tokensOf(tokenize(NONE)));
  return repeated ? (assembler.current as unknown) : undefined;
}

/**
 * True when `text` may give a key twice in an object: two of its strings
 * followed by a colon (every key is one) are the same key. Each string is
 * found from the end of the one before, so it is found once: a text that is
 * no JSON may be misread, which only costs a closer look or none.
 */
function mayRepeatKey(text: string): boolean {
  const seen = new Set<string>();
  const n = text.length;
  let at = text.indexOf('"');
  while (at !== -1) {
    // The string's closing quote: one not escaped by an odd run of backslashes.
    const end = closingQuoteOf(text, at);
    if (end === -1) return false;
    let next = end + 1;
    while (next < n && isJsonSpace(text.charCodeAt(next))) next++;
    if (text.charCodeAt(next) === 0x3a) {
      let key = text.slice(at + 1, end);
      if (key.includes('\\')) {
        try {
          key = JSON.parse(text.slice(at, end + 1)) as string;
        } catch {
          key = '';
        }
      }
      if (seen.has(key)) return true;
      seen.add(key);
    }
    at = text.indexOf('"', end + 1);
  }
  return false;
}
