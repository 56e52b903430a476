// V8's inlining held, where the V8 is one it was measured on (elsewhere
// nothing is changed), and by the commands it was measured to speed.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { INLINING_BUDGET, canLimitInlining } from '../src/cli/inlining.js';
import { ROOT, TEST_ENV, runBin } from './fixtures/lib/run.js';

const INLINING = pathToFileURL(path.join(ROOT, 'dist/cli/inlining.js')).href;

/**
 * In a fresh process traced by V8: whether a function of 191 bytes of
 * bytecode is inlined into its hot caller, with or without the limit, and
 * what limitInlining answered.
 */
function inlined(limit: boolean): { applied: boolean; inlined: boolean } {
  const script = `
    import { limitInlining } from ${JSON.stringify(INLINING)};
    const applied = ${limit} ? limitInlining() : false;
    function inner(a, b) {
      let s = 0;
      for (let i = 0; i < a.length; i++) { const c = a.charCodeAt(i); if (c === 32) s += b; else if (c > 100) s -= 1; else s ^= c; s = (s * 31) | 0; }
      return s + a.length + (b > 3 ? a.indexOf('x') : a.lastIndexOf('y')) + (s % 7 === 0 ? 1 : 2) + Math.max(s, b) + Math.min(s, b);
    }
    function outer(a, n) { let t = 0; for (let k = 0; k < n; k++) t += inner(a, k); return t; }
    let z = 0;
    for (let i = 0; i < 200000; i++) z += outer('hello world xy', 3);
    process.stderr.write(JSON.stringify({ applied, z }) + '\\n');`;
  const run = spawnSync(process.execPath, ['--trace-turbo-inlining', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(run.stderr);
  const { applied } = JSON.parse(run.stderr.trim().split('\n').pop()!) as { applied: boolean };
  return { applied, inlined: /^Inlining .*<SharedFunctionInfo inner>.* into .*<SharedFunctionInfo outer>/m.test(run.stdout) };
}

t.test('left alone, V8 inlines a function of 191 bytes of bytecode into its hot caller', async (t) => {
  t.ok(INLINING_BUDGET < 191, 'the budget is below the function');
  t.same(inlined(false), { applied: false, inlined: true });
});

t.test('held, it does not on the V8 it was measured on, and does elsewhere', async (t) => {
  const held = inlined(true);
  t.equal(held.applied, canLimitInlining(), 'held only where the V8 is known');
  t.equal(held.inlined, !held.applied, held.applied ? 'not inlined past the budget' : `V8 ${process.versions.v8}: inlined as before`);
});

t.test('only V8 11 (Node 20) is held', async (t) => {
  t.ok(canLimitInlining('11.3.244.8-node.33'));
  t.notOk(canLimitInlining('12.4.254.21-node.33'));
  t.notOk(canLimitInlining('13.6.233.10-node.27'));
});

t.test('ndjson-tools and ndjson-text hold it once they read; ndjson-dedupe and ndjson-result do not', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-agent-inlining-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  // Every flag a binary gives V8 at run time, told on stderr.
  const spy = path.join(dir, 'spy.cjs');
  fs.writeFileSync(
    spy,
    `const v8 = require('node:v8');
const set = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => { process.stderr.write('V8 flags: ' + flags + '\\n'); return set.call(v8, flags); };
`,
  );
  const env = { ...TEST_ENV, NODE_OPTIONS: `--require ${JSON.stringify(spy)}` };
  const stream = path.join(ROOT, 'test/fixtures/streams/basic.ndjson');
  const flag = `V8 flags: --max-inlined-bytecode-size-cumulative=${INLINING_BUDGET}`;
  const held = canLimitInlining();
  for (const [tool, args, expected] of [
    ['ndjson-tools', [stream], held],
    ['ndjson-text', ['--all', stream], held],
    ['ndjson-dedupe', [stream], false],
    ['ndjson-result', ['--all', stream], false],
    ['ndjson-tools', ['--help'], false],
  ] as const) {
    const ran = await runBin(tool, [...args], '', { env });
    t.equal(ran.code, 0, `${tool} ${args.join(' ')}: ends 0`);
    t.equal(ran.stderr.split('\n').includes(flag), expected, `${tool} ${args.join(' ')}: ${expected ? 'holds' : 'leaves'} V8's inlining`);
  }
});
