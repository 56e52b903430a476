// Property tests of ndjson-dedupe on generated streams (seeded: a failure names its seed, which replays it).
import t from 'tap';
import { prng, int, randomRun, interleave, toPartial } from './fixtures/ndjson-dedupe/partial.js';
import type { BuiltLine } from './fixtures/ndjson-dedupe/partial.js';
import { dedupeSync, keptText } from './fixtures/ndjson-dedupe/drive.js';

const SEEDS = 300;
const join = (lines: readonly string[]): string => lines.map((l) => `${l}\n`).join('');

t.test('generated partial streams, one or several sessions interleaved', async (t) => {
  let checked = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const rng = prng(seed);
    const runs = Array.from({ length: int(rng, 1, 3) }, (_, i) => randomRun(rng, `s${seed}-${i}`));
    const partial: BuiltLine[] = interleave(rng, runs.map((r) => r.partial));
    const plain = interleave(rng, runs.map((r) => r.plain));
    const input = join(partial.map((b) => b.line));
    const chunk = int(rng, 0, 40);
    const once = dedupeSync(input, { verify: true }, chunk);
    const parsed = dedupeSync(input, {}, chunk, true);
    if (parsed.out !== once.out) {
      t.equal(parsed.out, once.out, `seed ${seed}: the same whether every line is parsed or not, with --verify or not`);
      return;
    }

    const expected = join(partial.filter((b) => !b.duplicate).map((b) => b.line));
    if (once.out !== expected) {
      t.equal(once.out, expected, `seed ${seed}: exactly the repeating flushes are dropped`);
      return;
    }
    const texts = keptText(once.out);
    for (const run of runs) {
      if ((texts.get(run.session) ?? '') !== run.text) {
        t.equal(texts.get(run.session) ?? '', run.text, `seed ${seed}: kept text of ${run.session} is its result text`);
        return;
      }
    }
    if (once.failures.length > 0 || once.mismatches.length > 0 || once.core.stats.verified !== runs.length) {
      t.same({ failures: once.failures, mismatches: once.mismatches, verified: once.core.stats.verified }, { failures: [], mismatches: [], verified: runs.length }, `seed ${seed}: --verify passes`);
      return;
    }
    const twice = dedupeSync(once.out, {}, int(rng, 0, 40));
    if (twice.out !== once.out) {
      t.equal(twice.out, once.out, `seed ${seed}: dedupe twice is dedupe once`);
      return;
    }
    const plainOut = dedupeSync(join(plain), { verify: true }, int(rng, 0, 40));
    if (plainOut.out !== join(plain) || plainOut.core.stats.differed !== 0) {
      t.equal(plainOut.out, join(plain), `seed ${seed}: a stream without partial output passes unchanged`);
      return;
    }
    // Partial output built from the plain stream, as the captures' partial versions are built.
    const rebuilt = toPartial(join(plain), rng);
    const rebuiltOut = dedupeSync(join(rebuilt.map((b) => b.line)), { verify: true });
    if (rebuiltOut.out !== join(rebuilt.filter((b) => !b.duplicate).map((b) => b.line)) || rebuiltOut.core.stats.differed !== 0) {
      t.fail(`seed ${seed}: toPartial(plain) dedupes back and verifies`);
      return;
    }
    checked++;
  }
  t.equal(checked, SEEDS, `${SEEDS} generated streams`);
});

t.test('appended runs that reuse a session id are checked run by run', async (t) => {
  for (let seed = 1; seed <= 50; seed++) {
    const rng = prng(1000 + seed);
    const a = randomRun(rng, 'same');
    const b = randomRun(rng, 'same');
    const input = join([...a.partial, ...b.partial].map((l) => l.line));
    const res = dedupeSync(input, { verify: true });
    if (res.core.stats.verified !== 2 || res.core.stats.differed !== 0) {
      t.same(res.failures, [], `seed ${seed}: both runs verify`);
      return;
    }
  }
  t.pass('50 pairs of appended runs verify');
});

t.test('a changed delta is caught by --verify', async (t) => {
  // The check must be able to fail: change one delta's text, and its flush no longer repeats the deltas
  // (dropped and reported) and the kept text no longer equals the result.
  let tried = 0;
  let caught = 0;
  for (let seed = 1; seed <= 100; seed++) {
    const rng = prng(5000 + seed);
    const run = randomRun(rng, 'v');
    const deltas = run.partial
      .map((b, i) => ({ e: JSON.parse(b.line) as Record<string, unknown>, i }))
      .filter(({ e }) => e.type === 'assistant' && e.timestamp_ms !== undefined && e.model_call_id === undefined);
    if (deltas.length === 0) continue;
    tried++;
    const { e, i: at } = deltas[int(rng, 0, deltas.length - 1)]!;
    const content = (e.message as { content: Array<{ text: string }> }).content;
    content[0]!.text += 'X';
    const input = join(run.partial.map((b, i) => (i === at ? JSON.stringify(e) : b.line)));
    const res = dedupeSync(input, { verify: true });
    if (res.failures.length === 1 && res.mismatches.length === 1) caught++;
    else t.same({ failures: res.failures.length, mismatches: res.mismatches.length }, { failures: 1, mismatches: 1 }, `seed ${5000 + seed}`);
  }
  t.ok(tried > 50, `${tried} streams with a delta changed`);
  t.equal(caught, tried, 'each one: the flush mismatch is reported and the result differs');
});
