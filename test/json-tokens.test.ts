// The tokenizer of the slow path makes keys and strings whole itself (see tokenizer()): its tokens must be those of
// stream-json making them, for any text, however it is cut into pieces.
import t from 'tap';
import { jsonParser } from 'stream-json/parser.js';
import { NONE, tokenizer, tokensOf, type Token, type TokenFn } from '../src/io/json-tokens.js';
import { Rng } from '../bench/generate.mjs';

const stock = (): TokenFn => jsonParser({ jsonStreaming: true, packValues: true, streamKeys: false, streamNumbers: false, streamStrings: true }) as unknown as TokenFn;

/** The tokens of `text` fed in `pieces`, then its end; the error's message in place of the tokens from where it threw. */
function tokens(tokenize: TokenFn, pieces: string[]): unknown[] {
  const out: unknown[] = [];
  try {
    for (const piece of [...pieces, NONE]) for (const token of tokensOf(tokenize(piece as string))) out.push({ ...token });
  } catch (error) {
    out.push(`error: ${(error as Error).message}`);
  }
  return out;
}

const rng = new Rng('json-tokens');
/** A whole number from 0 to n - 1. */
const random = (n: number): number => rng.int(0, n - 1);
const TEXTS = ['', 'a', 'plain words', '\\"', '\\\\', '\\n', '\\u00e9', '\\ud83d\\ude00', '\\ud83d', '\\ude00', '😀', 'é中', '\\/', '\\t\\"x\\"'];
const text = (): string => Array.from({ length: random(6) }, () => TEXTS[random(TEXTS.length)]).join('');
function value(depth: number): string {
  switch (depth > 3 ? random(3) : random(6)) {
    case 0:
      return `"${text()}"`;
    case 1:
      return String(random(2000) - 1000) + (random(2) ? '.5e3' : '');
    case 2:
      return ['true', 'false', 'null'][random(3)]!;
    case 3:
      return `[${Array.from({ length: random(4) }, () => value(depth + 1)).join(', ')}]`;
    default:
      return `{${Array.from({ length: random(4) }, () => `"${text()}": ${value(depth + 1)}`).join(',')}}`;
  }
}

t.test('keys, strings and numbers whole, as stream-json makes them, in any pieces', async (t) => {
  for (let i = 0; i < 400; i++) {
    // Values one after another, some cut short or broken: what the slow path reads.
    let all = Array.from({ length: 1 + random(3) }, () => value(0)).join(random(2) ? '\n' : ' ');
    if (random(5) === 0) all = all.slice(0, random(all.length + 1));
    if (random(8) === 0) all += ' x';
    const pieces: string[] = [];
    for (let at = 0; at < all.length; ) {
      const size = 1 + random(12);
      pieces.push(all.slice(at, at + size));
      at += size;
    }
    t.same(tokens(tokenizer(), pieces), tokens(stock(), pieces), JSON.stringify(all));
  }
});

t.test('a string of a million escapes, made whole', async (t) => {
  const tokensOfIt = tokens(tokenizer(), [`{"k${'\\"'.repeat(10)}": "`, '\\"'.repeat(1e6), '"}']);
  t.same(tokensOfIt.find((token) => (token as Token).name === 'keyValue'), { name: 'keyValue', value: `k${'"'.repeat(10)}` });
  t.same(tokensOfIt.find((token) => (token as Token).name === 'stringValue'), { name: 'stringValue', value: '"'.repeat(1e6) });
});
