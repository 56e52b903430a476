// The slow path's store of lines: what it gives back is what was pushed, through drops and growth, against an array of
// copies (the store it replaced), on random steps.
import t from 'tap';
import { SlowLines } from '../src/io/slow-lines.js';
import type { KeptLine } from '../src/io/slow-lines.js';
import { prng } from './fixtures/ndjson-dedupe/partial.js';

/** Where `store` differs from `model`, described; undefined when they are the same. */
function difference(store: SlowLines, model: KeptLine[]): string | undefined {
  if (store.length !== model.length) return `length ${store.length}, want ${model.length}`;
  for (let i = 0; i < model.length; i++) {
    const got = store.line(i);
    const want = model[i]!;
    if (!got.buf.equals(want.buf) || got.no !== want.no || got.unterminated !== want.unterminated || !sameShown(got.shown, want.shown)) {
      const show = (l: KeptLine) => JSON.stringify({ ...l, buf: l.buf.toString('latin1').slice(0, 40), shown: l.shown?.toString('latin1') });
      return `line ${i}: ${show(got)}, want ${show(want)}`;
    }
    if (store.no(i) !== want.no) return `no(${i}): ${store.no(i)}, want ${want.no}`;
  }
  if (model.length > 0 && !store.first().equals(model[0]!.buf)) return 'first';
  return undefined;
}

function sameShown(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined ? b === undefined : b !== undefined && a.equals(b);
}

t.test('gives back what was pushed, through drops, on random steps', (t) => {
  for (let seed = 1; seed <= 30; seed++) {
    const next = prng(seed);
    const store = new SlowLines();
    let model: KeptLine[] = [];
    let no = 1;
    for (let step = 0; step < 400; step++) {
      const r = next();
      if (r < 0.8) {
        // A line of 0 bytes to 100 KiB (some large, so that the buffer grows, then shrinks when lines go).
        const size = next() < 0.05 ? Math.floor(next() * 100 * 1024) : Math.floor(next() * 40);
        const buf = Buffer.alloc(size, String.fromCharCode(97 + (step % 26)));
        const unterminated = next() < 0.1;
        const shown = next() < 0.3 ? Buffer.from(`shown ${step}`) : undefined;
        // The source's buffer is reused: the store must have copied it.
        const source = Buffer.from(buf);
        store.push(source, no, unterminated, shown);
        source.fill(0x30);
        model.push({ buf, no, unterminated, shown: model.length === 0 ? shown : undefined });
        no++;
      } else if (r < 0.9) {
        store.dropEarlier();
        if (model.length > 1) model = model.slice(-1);
      } else {
        const at = no - 1;
        store.keepLast(at);
        if (model.length > 0) {
          const last = model[model.length - 1]!;
          model = [{ buf: last.buf, no: at, unterminated: false, shown: model.length === 1 ? last.shown : undefined }];
        }
      }
      const wrong = difference(store, model);
      if (wrong !== undefined) {
        t.fail(`seed ${seed}, step ${step}: ${wrong}`);
        break;
      }
    }
    t.pass(`seed ${seed}: 400 steps`);
  }
  t.end();
});

t.test('a line handed out is a copy, not a view of the store', (t) => {
  const store = new SlowLines();
  store.push(Buffer.from('{"a":'), 1);
  store.push(Buffer.from('"b"}'), 2);
  const first = store.line(0).buf;
  store.dropEarlier();
  store.push(Buffer.from('xxxxxxxxxx'), 3);
  t.equal(first.toString(), '{"a":');
  t.equal(store.line(0).buf.toString(), '"b"}');
  t.equal(store.line(0).no, 2);
  t.equal(store.line(1).no, 3);
  t.end();
});
