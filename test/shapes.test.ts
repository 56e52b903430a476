// Lines of a frequent shape (src/io/shapes.ts, FREQUENT_SHAPES in src/events.ts) against
// JSON.parse: generated lines of every shape with strings and numbers of every kind, the
// same lines damaged byte by byte, and the reader's records with and without the shapes.
import t from 'tap';
import { Rng } from '../bench/generate.mjs';
import { NUMBERS, damage, fullParse, judgeAgainstFullParse, same, stringOf } from './fixtures/lib/json-text.js';
import { FREQUENT_SHAPES } from '../src/events.js';
import { compileShapes, matchShape, parseShape, slotValue } from '../src/io/shapes.js';
import type { CompiledShape } from '../src/io/shapes.js';
import { EventReader, peekType } from '../src/io/input.js';

const SHAPES = compileShapes(FREQUENT_SHAPES);

/** A line of `shape.skeleton`, its slots filled with generated values. */
function lineOf(rng: Rng, skeleton: string): Buffer {
  return Buffer.from(skeleton.replace(/%[sn]/g, (slot) => (slot === '%s' ? stringOf(rng, rng.logInt(2, 300)) : rng.pick(NUMBERS))));
}

t.test('each shape builds what JSON.parse makes of its skeleton', async (t) => {
  for (const shape of FREQUENT_SHAPES) {
    const raw = Buffer.from(shape.skeleton.replace(/%s/g, '"v"').replace(/%n/g, '7'));
    const event = parseShape(SHAPES, shape.type, raw);
    t.ok(event !== undefined, `${shape.skeleton} is read`);
    t.equal(JSON.stringify(event), raw.toString(), 'the same keys in the same order');
    t.equal(peekType(raw), shape.type, 'the line starts with its type');
  }
});

t.test('a line of a shape reads exactly as JSON.parse reads it', async (t) => {
  const rng = Rng.fromInt(41);
  let read = 0;
  for (let n = 0; n < 4000; n++) {
    const shape = rng.pick(FREQUENT_SHAPES);
    const raw = lineOf(rng, shape.skeleton);
    const full = fullParse(raw);
    const event = parseShape(SHAPES, shape.type, raw);
    if (!full.ok) {
      // A lone surrogate escape is valid JSON, so only strings damaged on purpose fail; none here.
      t.fail(`not JSON: ${raw.toString('latin1').slice(0, 200)}`);
      continue;
    }
    if (event === undefined) t.fail(`not read: ${raw.toString('latin1').slice(0, 200)}`);
    else if (!same(event, full.value)) t.fail(`differs: ${raw.toString('latin1').slice(0, 200)}`);
    else read++;
  }
  t.equal(read, 4000, 'every generated line read, as JSON.parse reads it');
});

t.test('a damaged line is never read as a different value', async (t) => {
  const rng = Rng.fromInt(42);
  const count = { rejected: 0, taken: 0, left: 0 };
  for (let n = 0; n < 6000; n++) {
    const shape = rng.pick(FREQUENT_SHAPES);
    const raw = damage(rng, lineOf(rng, shape.skeleton));
    count[judgeAgainstFullParse(t, raw, parseShape(SHAPES, shape.type, raw), 'the shape')]++;
  }
  t.ok(count.rejected > 2000, `${count.rejected} broken lines, none taken`);
  t.ok(count.taken > 200, `${count.taken} damaged lines still of a shape, read as JSON.parse reads them`);
});

t.test('a line that differs from the skeleton by a space, a key or its end is left to the full parse', async (t) => {
  const base = '{"type":"thinking","subtype":"delta","text":"hi","session_id":"s","timestamp_ms":1}';
  t.ok(parseShape(SHAPES, 'thinking', Buffer.from(base)));
  for (const other of [
    base.replace('"text":', '"text": '),
    base.replace('}', ' }'),
    `${base} `,
    base.replace('"delta"', '"Delta"'),
    base.replace(',"timestamp_ms":1', ',"timestamp_ms":1,"x":2'),
    base.replace('"s"', '7'),
    base.replace(':1}', ':"1"}'),
    base.replace(':1}', ':01}'),
    base.replace(':1}', ':1.}'),
    base.replace(':1}', ':-}'),
    `${base}{"type":"result"}`,
    base.slice(0, -1),
  ]) {
    t.equal(parseShape(SHAPES, 'thinking', Buffer.from(other)), undefined, other);
  }
  t.equal(parseShape(SHAPES, 'assistant', Buffer.from(base)), undefined, 'a shape of another type');
});

t.test('a shape that shares its start with the one tried before it matches as it would alone', async (t) => {
  // The assistant messages' shapes: a delta, a message with neither time nor model call, a flush; the same up to the session.
  t.same(
    SHAPES.get('assistant')!.map((shape) => shape.shared),
    [0, 2, 2],
    'the second and third start after the text and the session the first matched',
  );
  /** The first of `shapes` that `raw` is of, each tried alone (nothing shared), with its slots' values. */
  const alone = (shapes: readonly CompiledShape[], raw: Buffer): unknown[] | undefined => {
    for (const shape of shapes) {
      if (matchShape([{ ...shape, shared: 0 }], raw) !== undefined) return [shape, ...shape.strings.map((_, k) => slotValue(shape, raw, k))];
    }
    return undefined;
  };
  const together = (shapes: readonly CompiledShape[], raw: Buffer): unknown[] | undefined => {
    const shape = matchShape(shapes, raw);
    return shape === undefined ? undefined : [shape, ...shape.strings.map((_, k) => slotValue(shape, raw, k))];
  };
  const rng = Rng.fromInt(44);
  const assistant = FREQUENT_SHAPES.filter((shape) => shape.type === 'assistant');
  const shapes = SHAPES.get('assistant')!;
  const count = { matched: 0, none: 0 };
  for (let n = 0; n < 3000; n++) {
    const clean = lineOf(rng, rng.pick(assistant).skeleton);
    const raw = rng.chance(0.5) ? damage(rng, clean) : clean;
    const want = alone(shapes, raw);
    const got = together(shapes, raw);
    if (want === undefined ? got !== undefined : got === undefined || !same(got.slice(1), want.slice(1)) || got[0] !== want[0]) {
      t.fail(`matched otherwise: ${raw.toString('latin1').slice(0, 200)}`);
    }
    count[want === undefined ? 'none' : 'matched']++;
  }
  t.ok(count.matched > 1500 && count.none > 300, `${count.matched} lines of a shape, ${count.none} of none, all alike`);
});

t.test('the reader gives the same records with the shapes as the full parse', async (t) => {
  const rng = Rng.fromInt(43);
  const lines: Buffer[] = [];
  for (let n = 0; n < 500; n++) {
    const raw = lineOf(rng, rng.pick(FREQUENT_SHAPES).skeleton);
    lines.push(rng.chance(0.3) ? damage(rng, raw).filter((b) => b !== 0x0a) : raw);
  }
  const input = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
  const read = (needs?: (type: string) => boolean): string[] => {
    const out: string[] = [];
    const reader = new EventReader(
      { record: (r) => out.push(`${r.line} ${JSON.stringify(r.event)}`), problem: (p) => out.push(`${p.line} ${p.reason}`) },
      { needs },
    );
    reader.startSource('x');
    reader.write(input);
    reader.endSource();
    return out;
  };
  const full = read();
  t.ok(full.length >= 500, `${full.length} records and problems`);
  t.same(read(() => true), full, 'every type needed: the shapes read what the full parse reads');
});
