// The WebAssembly byte scan (src/io/byte-scan.ts) against a plain loop: every start and
// end over random bytes, lines longer than its window read across windows, and shorter
// lines after them.
import t from 'tap';
import { Rng } from '../bench/generate.mjs';
import { WINDOW, makeByteScan } from '../src/io/byte-scan.js';

function nextReference(raw: Buffer, from: number, end: number): number {
  for (let i = from; i < end; i++) if (raw[i] === 0x22 || raw[i] === 0x5c || raw[i]! < 0x20) return i;
  return end;
}

const scan = makeByteScan();

t.test('WebAssembly SIMD is available on every Node.js this project supports', async (t) => {
  t.ok(scan, 'the byte scan is made (node --jitless would fall back to Buffer#indexOf)');
});

t.test('the next quote, backslash or control byte, from every start to every end', { skip: scan ? false : 'no byte scan' }, async (t) => {
  const alphabet = [0x22, 0x5c, 0x00, 0x1f, 0x20, 0x21, 0x5b, 0x7f, 0x80, 0xff, 0x61];
  const rng = Rng.fromInt(5);
  let checked = 0;
  let found = 0;
  for (let round = 0; round < 60; round++) {
    const size = rng.int(0, 70);
    // Plain letters between, so that some runs of 16 and more hold nothing of interest.
    const raw = Buffer.from(Array.from({ length: size }, () => (rng.chance(0.1) ? rng.pick(alphabet) : 0x61 + rng.int(0, 25))));
    scan!.load(raw);
    for (let from = 0; from <= size; from++) {
      for (let end = from; end <= size; end++) {
        const got = scan!.next(from, end);
        const want = nextReference(raw, from, end);
        if (got !== want) {
          t.fail(`[${from}, ${end}) of ${raw.toString('hex')}: ${got}, not ${want}`);
          return;
        }
        checked++;
        if (want < end) found++;
      }
    }
  }
  t.ok(checked > 10000, `${checked} ranges`);
  t.ok(found > checked / 5 && found < checked, `${found} of them with a byte found`);
});

t.test('a line longer than the window is read across windows; a shorter one after it reads its own bytes', { skip: scan ? false : 'no byte scan' }, async (t) => {
  const big = Buffer.alloc(2 * WINDOW + 1000, 0x61);
  // Bytes of interest just before, at and after each window's edge, and far from them.
  const marks = [5, WINDOW - 1, WINDOW, WINDOW + 1, 2 * WINDOW - 16, 2 * WINDOW + 999];
  marks.forEach((at, i) => (big[at] = [0x22, 0x5c, 0x01][i % 3]!));
  scan!.load(big);
  let from = 0;
  const found: number[] = [];
  for (let at = scan!.next(from, big.length); at < big.length; at = scan!.next(from, big.length)) {
    found.push(at);
    from = at + 1;
  }
  t.same(found, marks, 'every byte of interest, in order, across the windows');
  t.equal(scan!.next(WINDOW + 2, 2 * WINDOW - 16), 2 * WINDOW - 16, 'the end is where it is told');
  t.equal(scan!.next(6, WINDOW - 1), WINDOW - 1, 'nothing between two marks');
  const small = Buffer.from('abc"');
  scan!.load(small);
  t.equal(scan!.next(0, small.length), 3);
  t.equal(scan!.next(0, 3), 3, 'the end is where it is told, whatever follows in memory');
});
