// How a binary starts: the bundle compiled with the code cache the build made for it (watched in a binary as a user
// runs it); a cache V8 does not take, or none, changes nothing but the time.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { ROOT } from './fixtures/lib/run.js';

const START = pathToFileURL(path.join(ROOT, 'dist/cli/start.js')).href;
const STREAM = path.join(ROOT, 'test/fixtures/streams/text-partial.ndjson');

/** In a fresh process with no options of its own (the tools run as a user runs them): the bundle loaded with `cache`, then ndjson-result run on the fixture. */
function load(cache: string | null): { cached: boolean; status: number; out: string } {
  const script = `
    import { loadBundle } from ${JSON.stringify(START)};
    import { PassThrough, Readable } from 'node:stream';
    const { commands, cached } = loadBundle(${JSON.stringify(cache)});
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (d) => (out += d));
    const io = { stdin: Readable.from([]), stdout, stderr: new PassThrough().resume(), env: { NO_COLOR: '1' } };
    const status = await commands.runCommand('result', [${JSON.stringify(STREAM)}], io);
    console.log(JSON.stringify({ cached, status, out }));`;
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env, timeout: 60_000 });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as { cached: boolean; status: number; out: string };
}

const ANSWER = spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js'), STREAM], { encoding: 'utf8' }).stdout;

t.test('the build made a code cache that V8 takes', async (t) => {
  const run = load(path.join(ROOT, 'dist/bundle/ndjson-agent.cjs.cache'));
  t.equal(run.cached, true, 'the cache was read and used');
  t.equal(run.status, 0);
  t.equal(run.out, ANSWER, 'the command gives its answer');
  t.ok(ANSWER.length > 0);
});

t.test('a binary compiles the bundle with that cache, and V8 takes it', async (t) => {
  // vm.Script watched from a module loaded before the binary: what each compile was given, and whether V8 took it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-cache-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const watch = path.join(dir, 'watch.cjs');
  const seen = path.join(dir, 'seen.ndjson');
  fs.writeFileSync(
    watch,
    `const vm = require('node:vm');
    const fs = require('node:fs');
    const Script = vm.Script;
    vm.Script = class extends Script {
      constructor(code, options) {
        super(code, options);
        fs.appendFileSync(${JSON.stringify(seen)}, JSON.stringify({ filename: options && options.filename, given: !!(options && options.cachedData), rejected: this.cachedDataRejected === true }) + '\\n');
      }
    };`,
  );
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const run = spawnSync(process.execPath, ['-r', watch, path.join(ROOT, 'bin/ndjson-result.js'), STREAM], { encoding: 'utf8', env, timeout: 60_000 });
  t.equal(run.status, 0, run.stderr);
  t.equal(run.stdout, ANSWER, 'the answer');
  const compiled = fs.readFileSync(seen, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { filename?: string; given: boolean; rejected: boolean });
  t.same(
    compiled.filter((c) => typeof c.filename === 'string' && c.filename.endsWith('ndjson-agent.cjs')),
    [{ filename: path.join(ROOT, 'dist/bundle/ndjson-agent.cjs'), given: true, rejected: false }],
    'the bundle, compiled once, with its cache, taken',
  );
});

t.test('the cache names the bundle by its place in the package, not by the directory it was built in', async (t) => {
  const cache = fs.readFileSync(path.join(ROOT, 'dist/bundle/ndjson-agent.cjs.cache'));
  t.equal(cache.includes(Buffer.from(ROOT)), false, 'no path of the build directory');
  t.equal(cache.includes(Buffer.from('ndjson-agent/dist/bundle/ndjson-agent.cjs')), true);
});

t.test('without a cache, or with one V8 does not take, the commands run the same', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-cache-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const junk = path.join(dir, 'junk.cache');
  fs.writeFileSync(junk, Buffer.alloc(4096, 7));
  for (const [cache, what] of [
    [null, 'no cache'],
    [path.join(dir, 'missing.cache'), 'a cache file that is not there'],
    [junk, 'bytes that are no cache'],
  ] as const) {
    const run = load(cache);
    t.equal(run.cached, false, `${what}: not used`);
    t.equal(run.status, 0, `${what}: status 0`);
    t.equal(run.out, ANSWER, `${what}: the same answer`);
  }
});

t.test('a current directory that is gone is one line and status 2, not a stack trace', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-tools']) {
    for (const args of [[STREAM], ['--help']]) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-gone-'));
      // Run as a user runs it: without the test runner's hooks (in NODE_OPTIONS), which would ask for the directory first.
      const run = spawnSync('sh', ['-c', 'cd "$1" && rmdir "$1" && shift && exec "$@"', 'sh', dir, 'env', '-u', 'NODE_OPTIONS', process.execPath, path.join(ROOT, `bin/${tool}.js`), ...args], { encoding: 'utf8' });
      t.equal(run.stderr, `${tool}: cannot read the current directory: no such file or directory; run it from another\n`, `${tool} ${args[0]}`);
      t.equal(run.stdout, '');
      t.equal(run.status, 2);
    }
  }
});
