// Calls without an id, as ndjson-tools and ndjson-text pair them: the index gives what a look through every pending
// call gives (the oldest of the session's calls of the tool with the completion's arguments, else the oldest).
import t from 'tap';
import { KeySets, UnnamedCalls, callGroup } from '../src/unnamed-calls.js';
import type { ToolCallFacts } from '../src/events.js';

/** Two calls given the same command and paths, compared field by field: what the index's keys stand for. */
function sameCallArgs(a: ToolCallFacts, b: ToolCallFacts): boolean {
  return a.command === b.command && a.argPaths.length === b.argPaths.length && a.argPaths.every((p, i) => p === b.argPaths[i]);
}

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface Waiting {
  key: string;
  session: string;
  tool: string | undefined;
  facts: ToolCallFacts;
}

/** The look through every waiting call, in the order they started. */
function lookThrough(waiting: readonly Waiting[], session: string, tool: string | undefined, facts: ToolCallFacts | undefined): string | undefined {
  let oldest: string | undefined;
  for (const w of waiting) {
    if (w.session !== session || w.tool !== tool) continue;
    if (facts === undefined || sameCallArgs(facts, w.facts)) return w.key;
    oldest ??= w.key;
  }
  return oldest;
}

t.test('the index finds the call a look through every waiting call finds', async (t) => {
  const commands = [undefined, 'ls', 'npm test', 'null', ''];
  const paths = [[], ['a'], ['b'], ['a', 'b'], ['b', 'a'], ['null']];
  for (let seed = 1; seed <= 40; seed++) {
    const next = random(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const facts = (): ToolCallFacts => ({ kind: 'other', command: pick(commands), argPaths: [...pick(paths)], resultPaths: [] });
    const index = new UnnamedCalls();
    let waiting: Waiting[] = [];
    let mismatches = 0;
    let found = 0;
    for (let step = 0; step < 3000; step++) {
      const session = pick(['s', 't', '']);
      const tool = pick(['read', 'shell', undefined]);
      if (next() < 0.55) {
        const w = { key: `k${step}`, session, tool, facts: facts() };
        waiting.push(w);
        index.add(w.key, callGroup(session, tool), w.facts);
        continue;
      }
      const asked = next() < 0.2 ? undefined : facts();
      const want = lookThrough(waiting, session, tool, asked);
      const got = index.find(callGroup(session, tool), asked);
      if (got !== want) mismatches++;
      if (want !== undefined) {
        found++;
        waiting = waiting.filter((w) => w.key !== want);
        index.delete(want);
      }
    }
    t.equal(mismatches, 0, `seed ${seed}: the same call each time (${found} found)`);
  }
});

t.test('a group of a session and a tool is told apart from any other', async (t) => {
  t.not(callGroup('a', undefined), callGroup('a', 'null'));
  t.not(callGroup('a,b', 'c'), callGroup('a', 'b,c'));
  t.equal(callGroup('s', 'read'), callGroup('s', 'read'));
});

t.test('KeySets: keys in the order filed, whatever was emptied and let go on the way', async (t) => {
  const sets = new KeySets();
  const model = new Map<string, string[]>();
  const next = random(7);
  for (let step = 0; step < 20000; step++) {
    const name = `n${Math.floor(next() * (step < 10000 ? 500 : 3))}`;
    const keys = model.get(name) ?? [];
    if (keys.length > 0 && next() < 0.5) {
      const key = keys[Math.floor(next() * keys.length)]!;
      sets.delete(name, key);
      model.set(name, keys.filter((k) => k !== key));
    } else {
      sets.add(name, `k${step}`);
      model.set(name, [...keys, `k${step}`]);
    }
  }
  // Every name emptied: the emptied sets are let go, but for a few.
  for (const [name, keys] of model) {
    for (const key of keys) sets.delete(name, key);
    model.set(name, []);
  }
  const held = (sets as unknown as { sets: Map<string, Set<string>> }).sets;
  t.ok(held.size <= 65, `emptied sets let go (${held.size} left of ${model.size})`);
  for (let step = 0; step < 2000; step++) {
    const name = `n${Math.floor(next() * 5)}`;
    const keys = model.get(name)!;
    if (keys.length > 0 && next() < 0.5) {
      sets.delete(name, keys[0]!);
      model.set(name, keys.slice(1));
    } else {
      sets.add(name, `m${step}`);
      model.set(name, [...keys, `m${step}`]);
    }
  }
  let same = true;
  for (const [name, keys] of model) {
    if (JSON.stringify([...sets.keys(name)]) !== JSON.stringify(keys)) same = false;
    if (sets.first(name) !== keys[0]) same = false;
  }
  t.ok(same, 'each name holds its keys, in the order they were filed');
  sets.delete('n0', 'no such key');
  t.equal(sets.first('never filed'), undefined);
  sets.clear();
  t.equal([...sets.keys('n1')].length, 0, 'cleared');
});
