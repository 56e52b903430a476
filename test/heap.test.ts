// V8's heap held small, where the V8 is one it was measured on (elsewhere
// nothing is changed): the young generation's growth stops at the cap, and
// the old generation is collected sooner.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { MARKING_START, MARKING_START_LIVE, canHoldHeap } from '../src/cli/heap.js';
import { ROOT } from './fixtures/lib/run.js';

const HEAP = pathToFileURL(path.join(ROOT, 'dist/cli/heap.js')).href;

/** In a fresh process: the new space's size after churning through short-lived objects, with or without the hold. */
function churn(hold: boolean): { held: boolean; size: number; cap: number } {
  const script = `
    import { holdHeap, youngSpaceSize, YOUNG_SPACE_CAP } from ${JSON.stringify(HEAP)};
    const held = ${hold} ? holdHeap() : false;
    let keep = [];
    for (let i = 0; i < 4e6; i++) {
      keep.push({ i, s: String(i) });
      if (keep.length > 100000) keep = [];
      if (i % 50000 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    console.log(JSON.stringify({ held, size: youngSpaceSize(), cap: YOUNG_SPACE_CAP }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as { held: boolean; size: number; cap: number };
}

t.test('left alone, V8 grows the young generation past the cap', async (t) => {
  const free = churn(false);
  t.ok(free.size > free.cap, `new space ${free.size} bytes, cap ${free.cap}`);
});

t.test('held, it stops at the cap on the V8 it was measured on, and is left alone elsewhere', async (t) => {
  const held = churn(true);
  t.equal(held.held, canHoldHeap(), 'held only where the V8 is known');
  if (held.held) t.ok(held.size <= held.cap, `new space ${held.size} bytes, cap ${held.cap}`);
  else t.ok(held.size > held.cap, `V8 ${process.versions.v8}: not held, grows as before`);
});

t.test('only V8 11 (Node 20) is held', async (t) => {
  t.ok(canHoldHeap('11.3.244.8-node.33'));
  t.notOk(canHoldHeap('12.4.254.21-node.33'));
  t.notOk(canHoldHeap('13.6.233.10-node.27'));
});

/** How {@link promotion} runs: with the hold (holdHeap's argument, as code) or without it, and how much it does. */
interface PromotionOptions {
  /** Calls holdHeap with this argument (`''` for none); without it, no hold. */
  hold?: string;
  /** Node's flags. */
  flags?: string[];
  rounds: number;
  /** Short strings made and dropped in each round. */
  garbage: number;
  /** Strings kept to the end in each round. */
  live?: number;
}

/**
 * In a fresh process: round after round, objects kept across a few young
 * collections (so moved to the old generation) are let go, among `garbage`
 * short-lived strings, and `live` strings a round are kept to the end. Gives
 * whether the heap was held, how far the old generation grew, how many full
 * collections V8 made, and the new space's size at the end.
 */
function promotion({ hold, flags = [], rounds, garbage, live = 0 }: PromotionOptions): { held: boolean; grown: number; majors: number; size: number } {
  const script = `
    import { PerformanceObserver, constants } from 'node:perf_hooks';
    import { holdHeap, oldGenerationUsed, youngSpaceSize } from ${JSON.stringify(HEAP)};
    let majors = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
    }).observe({ entryTypes: ['gc'] });
    const held = ${hold === undefined ? 'false' : `holdHeap(${hold})`};
    const start = oldGenerationUsed();
    const live = [];
    let max = start;
    let sink = 0;
    for (let round = 0; round < ${rounds}; round++) {
      const short = [];
      for (let i = 0; i < 10000; i++) short.push({ i, s: 'short ' + i + ' ' + round });
      for (let i = 0; i < ${live}; i++) live.push('kept ' + round + ' ' + i + ' ' + 'x'.repeat(20));
      for (let i = 0; i < ${garbage}; i++) sink += String(i).length;
      sink += short.length;
      await new Promise((resolve) => setImmediate(resolve));
      max = Math.max(max, oldGenerationUsed());
    }
    console.log(JSON.stringify({ held, grown: max - start, majors, size: youngSpaceSize() }));`;
  const run = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as { held: boolean; grown: number; majors: number; size: number };
}

/**
 * How far the old generation grows with the hold, or without it and the
 * young generation capped as the hold caps it (by the flag given at start),
 * so that as many objects are moved.
 */
function promote(hold: boolean): { held: boolean; grown: number } {
  return promotion({ hold: hold ? '' : undefined, flags: hold ? [] : ['--max-semi-space-size=2'], rounds: 300, garbage: 200_000 });
}

t.test('held, the old generation grows far less before V8 collects it, on the V8 it was measured on', async (t) => {
  const free = promote(false);
  t.ok(free.grown > 16 * 1024 * 1024, `left alone: grown ${free.grown} bytes`);
  const held = promote(true);
  t.equal(held.held, canHoldHeap(), 'held only where the V8 is known');
  // Where it is not held, the young generation is not capped either, and fewer objects are moved: nothing to compare.
  if (held.held) t.ok(held.grown < free.grown * 0.75, `held: grown ${held.grown} bytes`);
});

t.test('a binary loads the hold once it reads its input, and not when it answers without reading it', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-heap-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  // Run before the binary, it reports at exit whether V8's module was loaded (heap.ts and inlining.ts, which a
  // run loads together, are the modules that load it), then the size of the new space.
  const probe = path.join(dir, 'probe.cjs');
  fs.writeFileSync(
    probe,
    `process.on('exit', () => {
      const loaded = process.moduleLoadList.includes('NativeModule v8');
      const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      require('node:fs').writeSync(2, JSON.stringify({ loaded, size: space.space_size }) + '\\n');
    });`,
  );
  const init = JSON.stringify({ type: 'system', subtype: 'init', session_id: 's', cwd: '/p' });
  const result = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'done', session_id: 's' });
  const small = path.join(dir, 'small.ndjson');
  fs.writeFileSync(small, `${init}\n${result}\n`);
  // Enough text deltas that the young generation, left alone, would grow past the cap.
  const deltas = Array.from({ length: 150_000 }, (_, i) =>
    JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: `word ${i} ${'x'.repeat(i % 90)}` }] }, session_id: 's', timestamp_ms: i }),
  );
  const big = path.join(dir, 'big.ndjson');
  fs.writeFileSync(big, [init, ...deltas, result].join('\n') + '\n');
  const report = (args: string[]): { loaded: boolean; size: number } => {
    const ran = spawnSync(process.execPath, ['-r', probe, ...args], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'ignore', 'pipe'] });
    t.equal(ran.status, 0, `${args.map((a) => path.basename(a)).join(' ')}: status 0`);
    return JSON.parse(ran.stderr.trim().split('\n').pop()!) as { loaded: boolean; size: number };
  };
  const bin = (name: string): string => path.join(ROOT, 'bin', `${name}.js`);
  t.equal(report([bin('ndjson-result'), small]).loaded, false, 'ndjson-result FILE, read from its end: not loaded');
  t.equal(report([bin('ndjson-tools'), '--help']).loaded, false, '--help: not loaded');
  for (const args of [[bin('ndjson-result'), '--all', small], [bin('ndjson-text'), '--all', big]]) {
    const { loaded, size } = report(args);
    t.equal(loaded, true, `${path.basename(args[0]!)} ${args[1]}: loaded`);
    if (canHoldHeap()) t.ok(size <= 4 * 1024 * 1024, `${path.basename(args[0]!)} ${args[1]}: new space ${size} bytes`);
  }
});

/** Held at once (whatever the young generation's size) with `options` (code); `live` strings a round kept to the end. */
function marking(options: string, live = 0): { held: boolean; grown: number; majors: number } {
  return promotion({ hold: `{ cap: 0, ...${options} }`, rounds: 100, garbage: 50_000, live });
}

t.test("held, V8 starts marking early: the old generation grows less past what a full collection left", async (t) => {
  const early = marking('{}');
  const own = marking('{ markingStart: 0 }');
  t.equal(early.held, canHoldHeap(), 'held only where the V8 is known');
  // Elsewhere nothing is set: nothing to compare.
  if (early.held) {
    t.ok(early.grown < own.grown * 0.85, `marking at ${MARKING_START}% of the room: grown ${early.grown} bytes; at V8's own start: ${own.grown}`);
    t.ok(early.majors > own.majors, `${early.majors} full collections against ${own.majors}`);
  }
});

t.test("held, a run that keeps much goes back to V8's own start of marking", async (t) => {
  const guarded = marking('{}', 6000);
  const unguarded = marking('{ markingStartLive: Infinity }', 6000);
  t.equal(guarded.held, canHoldHeap(), 'held only where the V8 is known');
  if (guarded.held) {
    t.ok(guarded.grown > MARKING_START_LIVE, `${guarded.grown} bytes kept: past ${MARKING_START_LIVE}`);
    t.ok(guarded.majors * 1.15 < unguarded.majors, `${guarded.majors} full collections against ${unguarded.majors} when marking kept starting early`);
  }
});

t.test("held, a run is put in V8's mode for saving memory after `savingAfter` full collections: the young generation shrinks", async (t) => {
  const long = promotion({ hold: '{ savingAfter: 2 }', rounds: 300, garbage: 200_000 });
  const never = promotion({ hold: '{ savingAfter: Infinity }', rounds: 300, garbage: 200_000 });
  t.equal(long.held, canHoldHeap(), 'held only where the V8 is known');
  if (long.held) {
    t.ok(long.majors > 2, `${long.majors} full collections`);
    t.ok(long.size < never.size, `new space ${long.size} bytes in that mode, ${never.size} without it`);
  }
});
