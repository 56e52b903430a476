// Pipes, signals and inputs that cannot be read, with the built binaries as a shell
// runs them:
//   - `| head -1` ends every tool with status 0 and nothing on stderr, but one that judges its whole input (the
//     checks, --verify, ndjson-result), which reads on to its end and gives its status;
//   - a stdout reader slower than the input keeps memory bounded (it does not grow
//     with the input);
//   - --strict into a slow reader: all the output made before the bad line arrives,
//     and the status is 2 whatever the reader does;
//   - warnings into a stderr read slowly all arrive;
//   - SIGINT and SIGTERM end a tool promptly with 130 and 143, after it has written
//     what it owes at the end of its input (pending calls, a summary, the final
//     message), even when its reader has stopped reading; a command run after --
//     gets the signal too;
//   - stdin closed at once, a missing file, a directory, an unreadable file: one
//     clear line each.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { main as toolsMain } from '../src/cli/tools.js';
import { ProcessSignals, SAME_SIGNAL_MS, finalStatus, startCommand } from '../src/cli/common.js';
import type { SignalSource, SignalTarget, StopSignal } from '../src/cli/common.js';
import { BIN } from './fixtures/lib/run.js';
import { PLAIN_ENV, ROOT, manySessions, memoryOf, plainCommand, sleep, startBin, waitFor } from './fixtures/hostile/spawn.js';

const TOOLS = ['ndjson-result', 'ndjson-dedupe', 'ndjson-text', 'ndjson-tools'] as const;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-pipes-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));

/** True while the process `pid` exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Enough output to fill any pipe long before the end (LARGE: even the text alone).
const MANY = path.join(dir, 'many.ndjson');
fs.writeFileSync(MANY, manySessions(4e6));
const LARGE = path.join(dir, 'large.ndjson');
fs.writeFileSync(LARGE, manySessions(12e6));

t.test('| head -1: status 0, nothing on stderr, for every tool and its main outputs', async (t) => {
  const runs: Array<[string, string[]]> = [
    ['ndjson-result', []],
    ['ndjson-result', ['--all']],
    ['ndjson-result', ['--all', '--json']],
    ['ndjson-dedupe', []],
    ['ndjson-dedupe', ['--stats']],
    ['ndjson-text', []],
    ['ndjson-text', ['-a']],
    ['ndjson-tools', []],
    ['ndjson-tools', ['--full']],
    ['ndjson-tools', ['--summary']],
    ['ndjson-tools', ['--paths']],
  ];
  for (const [tool, args] of runs) {
    for (const how of ['file', 'pipe'] as const) {
      const command = `env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(BIN, `${tool}.js`))} ${args.join(' ')}`;
      const script = how === 'file' ? `${command} "$1" | head -1` : `cat "$1" | ${command} | head -1`;
      const ran = spawnSync('bash', ['-c', `${script} > /dev/null; echo "\${PIPESTATUS[@]}"`, 'bash', MANY], { env: PLAIN_ENV, encoding: 'utf8' });
      const statuses = ran.stdout.trim().split(' ');
      const status = statuses[how === 'file' ? 0 : 1];
      t.equal(`${status} ${ran.stderr}`, '0 ', `${tool} ${args.join(' ')} (${how}) | head -1`);
    }
  }
});

t.test('| head -1 does not end a tool that judges its whole input: the checks, --verify, read to the end', async (t) => {
  // The one write outside the allowed paths, and a run without its result, come last: long after the reader has gone.
  const calls = Array.from({ length: 20_000 }, (_, i) =>
    JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: `c${i}`, tool_call: { readToolCall: { args: { path: `f${i}.txt` }, result: { success: {} } } }, session_id: 'S' }),
  );
  const write = JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: 'w', tool_call: { writeToolCall: { args: { path: '.github/ci.yml' }, result: { success: {} } } }, session_id: 'S' });
  const file = path.join(dir, 'gate.ndjson');
  fs.writeFileSync(file, `${[JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 'S' }), ...calls, write].join('\n')}\n`);
  const runs: Array<[string, string[], number, RegExp]> = [
    ['ndjson-tools', ['--deny-write', "'.github/**'"], 3, /^ndjson-tools: [^\n]*:20002: --deny-write '\.github\/\*\*': write \.github\/ci\.yml \(call w, success\)\n$/],
    ['ndjson-tools', ['--no-pending', '--paths'], 0, /^$/],
    ['ndjson-dedupe', ['--verify'], 4, /^ndjson-dedupe: [^\n]*:20002: verify: session S: no result to check the kept text against: the stream ended first\n$/],
  ];
  for (const [tool, args, code, stderr] of runs) {
    for (const how of ['file', 'pipe'] as const) {
      const command = `env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(BIN, `${tool}.js`))} ${args.join(' ')}`;
      const script = how === 'file' ? `${command} "$1" | head -1` : `cat "$1" | ${command} | head -1`;
      const ran = spawnSync('bash', ['-c', `${script} > /dev/null; echo "\${PIPESTATUS[@]}"`, 'bash', file], { env: PLAIN_ENV, encoding: 'utf8' });
      const status = ran.stdout.trim().split(' ')[how === 'file' ? 0 : 1];
      t.equal(Number(status), code, `${tool} ${args.join(' ')} (${how}) | head -1: the status of the whole input`);
      t.match(ran.stderr, stderr, `${tool} ${args.join(' ')} (${how}) | head -1: what it says`);
    }
  }
});

t.test('| head -1 does not end ndjson-result: its status is the verdict of the whole input', async (t) => {
  // Sessions that succeed, then one that fails, its answer longer than a pipe holds: the reader is gone before its end.
  const long = Array.from({ length: 4000 }, (_, i) => `line ${i} of the answer, more than a pipe holds`).join('\n');
  const failed = JSON.stringify({ type: 'result', subtype: 'error_during_execution', is_error: true, result: long, session_id: 'F' });
  const died = JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'working' }] }, session_id: 'D' });
  const failedFile = path.join(dir, 'failed-last.ndjson');
  fs.writeFileSync(failedFile, Buffer.concat([manySessions(1e6), Buffer.from(`${failed}\n`)]));
  const diedFile = path.join(dir, 'died-last.ndjson');
  fs.writeFileSync(diedFile, Buffer.concat([manySessions(1e6), Buffer.from(`${died}\n`)]));
  const runs: Array<[string, string[], number, RegExp]> = [
    // (A failed run's answer is not printed but with --json or --field.)
    [failedFile, ['--field', 'result'], 3, /^ndjson-result: the run failed: error_during_execution: line 0 of the answer[^\n]*\(session F, result at [^\n]*\)\n$/],
    [failedFile, ['--json'], 3, /^ndjson-result: the run failed: [^\n]*\(session F, result at [^\n]*\)\n$/],
    [failedFile, ['--all'], 3, /^ndjson-result: the run failed: [^\n]*\(session F, result at [^\n]*\)\n$/],
    [diedFile, ['--all', '--json'], 4, /^ndjson-result: no result event: the agent stopped before finishing \(session D, last event at [^\n]*\)\n$/],
    [diedFile, [], 4, /^ndjson-result: no result event: the agent stopped before finishing \(session D, last event at [^\n]*\)\n$/],
  ];
  for (const [file, args, code, stderr] of runs) {
    for (const how of ['file', 'pipe'] as const) {
      const command = `env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(BIN, `ndjson-result.js`))} ${args.join(' ')}`;
      const script = how === 'file' ? `${command} "$1" | head -1` : `cat "$1" | ${command} | head -1`;
      const ran = spawnSync('bash', ['-c', `${script} > /dev/null; echo "\${PIPESTATUS[@]}"`, 'bash', file], { env: PLAIN_ENV, encoding: 'utf8' });
      const status = ran.stdout.trim().split(' ')[how === 'file' ? 0 : 1];
      const name = `ndjson-result ${args.join(' ')} ${path.basename(file)} (${how}) | head -1`;
      t.equal(Number(status), code, `${name}: the status of the whole input`);
      t.match(ran.stderr, stderr, `${name}: what it says`);
    }
  }
  // A reader gone before anything is written (`| true`, which reads nothing): the verdict all the same.
  const ran = spawnSync('bash', ['-c', `env -u NODE_OPTIONS "$2" "$3" --json "$1" | true; echo "\${PIPESTATUS[0]}"`, 'bash', failedFile, process.execPath, path.join(BIN, 'ndjson-result.js')], {
    env: PLAIN_ENV,
    encoding: 'utf8',
  });
  t.equal(ran.stdout, '3\n', 'ndjson-result --json FILE | true: 3');
});

t.test('| head -1 with ndjson-result -- command: the command is read to its end, and its status weighed', async (t) => {
  // The agent writes a session that succeeds, then, once its reader has surely gone, one that fails, and exits 1.
  const ok = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'fine', session_id: 'A' });
  const failed = JSON.stringify({ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'broken', session_id: 'B' });
  const agent = `process.stdout.write(${JSON.stringify(`${ok}
`)}); setTimeout(() => { process.stdout.write(${JSON.stringify(`${failed}
`)}, () => process.exit(1)); }, 300)`;
  const command = `env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(BIN, 'ndjson-result.js'))} --all --field result -- ${JSON.stringify(process.execPath)} -e ${JSON.stringify(agent)}`;
  const ran = spawnSync('bash', ['-c', `${command} | head -1; echo "\${PIPESTATUS[@]}"`], { env: PLAIN_ENV, encoding: 'utf8', timeout: 20_000 });
  t.equal(ran.stdout, 'fine\n3 0\n', 'the first answer, then the status of the failed run');
  t.match(ran.stderr, /^ndjson-result: the run failed: error_during_execution: broken \(session B, result at [^\n]*:2\)\n/);
});

t.test('| head -1 with a command run after --: the command is stopped, not left running', async (t) => {
  // The agent writes a line of text every 10 ms and survives its reader going away (it ignores EPIPE), as a shell loop
  // that starts its writer again would: only the tool can tell it no one reads any more.
  const pidFile = path.join(dir, 'agent.pid');
  const delta = JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'hello\n' }] }, session_id: 's', timestamp_ms: 1 });
  const agent = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.stdout.on('error', () => {}); setInterval(() => process.stdout.write(${JSON.stringify(delta + '\n')}), 10)`;
  const command = `env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(BIN, 'ndjson-text.js'))} -a -- ${JSON.stringify(process.execPath)} -e ${JSON.stringify(agent)}`;
  const ran = spawnSync('bash', ['-c', `${command} | head -1; echo "\${PIPESTATUS[@]}"`], { env: PLAIN_ENV, encoding: 'utf8', timeout: 20_000 });
  t.equal(ran.stdout, 'hello\n0 0\n', 'the first line, then status 0 for both');
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  t.ok(await waitFor(() => !alive(pid), 5000), 'the agent is gone');
  if (alive(pid)) process.kill(pid, 'SIGKILL');
});

/**
 * `ndjson-text -a -- <agent> | head -1`, the agent a node script writing a delta every 10 ms that does `onTerm` when
 * sent SIGTERM (`wrap`: the command line that runs it, given its own); its pid, read once the pipeline has ended, and
 * what the pipeline gave: stdout the statuses of both, stderr the tool's.
 */
function headOfAgent(name: string, onTerm: string, wrap = (agent: string) => agent): { pid: number; ran: ReturnType<typeof spawnSync>; took: number } {
  const pidFile = path.join(dir, `${name}.pid`);
  const delta = JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'hello\n' }] }, session_id: 's', timestamp_ms: 1 });
  const script = [
    `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));`,
    `process.on('SIGTERM', () => { ${onTerm} });`,
    `process.stdout.on('error', () => {});`,
    `setInterval(() => process.stdout.write(${JSON.stringify(delta + '\n')}), 10);`,
  ].join(' ');
  const agent = wrap(`${JSON.stringify(process.execPath)} -e ${JSON.stringify(script)}`);
  const command = `env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(BIN, 'ndjson-text.js'))} -a -- ${agent}`;
  const started = Date.now();
  const ran = spawnSync('bash', ['-c', `${command} | head -1 >/dev/null; echo "\${PIPESTATUS[@]}"`], { env: PLAIN_ENV, encoding: 'utf8', timeout: 30_000 });
  return { pid: Number(fs.readFileSync(pidFile, 'utf8')), ran, took: Date.now() - started };
}

t.test('| head -1 with a command run after --: the command is waited for, its last words passed through', async (t) => {
  // The agent takes 300 ms to end once sent SIGTERM, and says where to resume on its stderr as it goes.
  const { pid, ran } = headOfAgent('slow-agent', "setTimeout(() => { process.stderr.write('agent: session saved\\n'); process.exit(143); }, 300);");
  const gone = !alive(pid);
  if (!gone) process.kill(pid, 'SIGKILL');
  t.equal(ran.stdout, '0 0\n', 'status 0 for both');
  t.ok(gone, 'the agent has ended when the pipeline ends');
  t.match(ran.stderr, /agent: session saved\n/, 'its last words reach stderr');
});

t.test('a command run after -- that does not end once told to: killed 5 seconds later, and said so', async (t) => {
  const { pid, ran, took } = headOfAgent('stubborn-agent', '');
  const gone = !alive(pid);
  if (!gone) process.kill(pid, 'SIGKILL');
  t.equal(ran.stdout, '0 0\n', 'status 0 for both');
  t.ok(gone, 'the agent has ended (and been reaped) when the pipeline ends');
  t.ok(took >= 4500, `the agent was given its 5 seconds (${took} ms)`);
  t.match(ran.stderr, /^ndjson-text: \S+ was still running 5 seconds after it was told to stop: killed \(SIGKILL\)\n$/, 'the kill is reported');
});

t.test('a command run after -- that ends at once, leaving a process it started at work: said so, 5 seconds later', async (t) => {
  // The shell waits for the agent, and dies of the SIGTERM it is sent; the agent, which ignores it, goes on.
  const { pid, ran } = headOfAgent('grandchild-agent', '', (agent) => `sh -c ${JSON.stringify(`${agent}; echo done >&2`)}`);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  t.equal(ran.stdout, '0 0\n', 'status 0 for both');
  t.match(ran.stderr, /^ndjson-text: sh has ended, but a process it started still holds its output open: left running\n$/, 'the agent left running is reported');
});

t.test('a command run after -- that does not end once told to, nor does a process it started: the command killed, the process said to be left running', async (t) => {
  // The shell ignores SIGTERM as the agent it waits for does: SIGKILL 5 seconds later ends the shell, not the agent.
  const { pid, ran } = headOfAgent('stubborn-grandchild', '', (agent) => `sh -c ${JSON.stringify(`trap "" TERM; ${agent}; echo done >&2`)}`);
  const left = alive(pid);
  if (left) process.kill(pid, 'SIGKILL');
  t.equal(ran.stdout, '0 0\n', 'status 0 for both');
  t.ok(left, 'the agent was left running');
  t.match(
    ran.stderr,
    /^ndjson-text: sh was still running 5 seconds after it was told to stop: killed \(SIGKILL\)\nndjson-text: a process sh started still holds its output open: left running\n$/,
    'the kill and the agent left running are both reported',
  );
});

t.test('a stdout reader that stops reading: memory does not grow with the input', async (t) => {
  const small = LARGE;
  const big = path.join(dir, 'big.ndjson');
  fs.writeFileSync(big, manySessions(48e6));
  for (const [tool, args] of [['ndjson-dedupe', []], ['ndjson-text', ['-a']], ['ndjson-tools', ['--full']]] as const) {
    const peaks: number[] = [];
    for (const file of [small, big]) {
      const run = startBin(tool, [...args, file]);
      run.child.stdout!.pause();
      // The reader sleeps: the tool fills the pipe and must wait, not read on into memory.
      let peak = 0;
      for (let i = 0; i < 40; i++) {
        await sleep(50);
        peak = Math.max(peak, memoryOf(run.child.pid!)?.peak ?? 0);
      }
      run.child.stdout!.resume();
      const end = await run.exited;
      t.equal(end.code, 0, `${tool} ${file === big ? '48 MB' : '12 MB'} ends well once read`);
      peaks.push(peak);
    }
    t.comment(`${tool} ${args.join(' ')}: peak RSS while the reader sleeps: ${peaks.map((p) => `${(p / 1024).toFixed(0)} MiB`).join(' (12 MB in), ')} (48 MB in)`);
    t.ok(peaks[1]! < peaks[0]! + 24 * 1024, `${tool}: 4x the input, no more than 24 MiB more memory (${peaks[0]} KiB, ${peaks[1]} KiB)`);
  }
});

t.test('--strict into a reader slower than the tool: what was made before the bad line all arrives, and the status is 2 even if the reader goes', async (t) => {
  // Events that make more output than a pipe holds, then a bad line and one more event, all in the tool's first read.
  const init = '{"type":"system","subtype":"init","session_id":"s","cwd":"/p"}\n';
  const said = (i: number) => `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"line ${i} ${'x'.repeat(250)}"}]},"session_id":"s"}\n`;
  const ran = (i: number) =>
    `{"type":"tool_call","subtype":"completed","call_id":"c${i}","tool_call":{"shellToolCall":{"args":{"command":"ls"},"result":{"success":{"exitCode":0,"stdout":"${'y'.repeat(250)}"}}}},"session_id":"s"}\n`;
  const lines = (make: (i: number) => string) => init + Array.from({ length: 2000 }, (_, i) => make(i)).join('');
  for (const [tool, args, make] of [
    ['ndjson-dedupe', [], said],
    ['ndjson-text', ['-a'], said],
    ['ndjson-tools', ['--full'], ran],
  ] as const) {
    const prefix = lines(make);
    // One name, in two directories: records name the file they were read from.
    const before = fs.mkdtempSync(path.join(dir, 'strict-before-'));
    const bad = fs.mkdtempSync(path.join(dir, 'strict-bad-'));
    fs.writeFileSync(path.join(before, 'run.ndjson'), prefix);
    fs.writeFileSync(path.join(bad, 'run.ndjson'), `${prefix}not json\n${make(9999)}`);
    t.ok(prefix.length < 1024 * 1024, `${tool}: the bad line within the first read (${prefix.length} bytes before it)`);
    const line = prefix.split('\n').length;
    const command = `env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(BIN, `${tool}.js`))} ${args.join(' ')}`;
    const whole = spawnSync('bash', ['-c', `${command} run.ndjson`], { cwd: before, env: PLAIN_ENV, maxBuffer: 1 << 26 });
    t.ok(whole.stdout.length > 256 * 1024, `${tool}: more output than a pipe holds (${whole.stdout.length} bytes)`);
    const slow = spawnSync('bash', ['-c', `${command} --strict run.ndjson | (sleep 1; cat); echo "status \${PIPESTATUS[0]}" >&2`], { cwd: bad, env: PLAIN_ENV, maxBuffer: 1 << 26 });
    t.equal(slow.stderr.toString(), `${tool}: run.ndjson:${line}: not JSON: not json\nstatus 2\n`, `${tool}: the bad line, status 2`);
    t.ok(slow.stdout.equals(whole.stdout), `${tool}: the output of the lines before it, all of it (${slow.stdout.length} of ${whole.stdout.length} bytes)`);
    const gone = spawnSync('bash', ['-c', `${command} --strict run.ndjson | (sleep 1; head -c 10 > /dev/null); echo "status \${PIPESTATUS[0]}" >&2`], { cwd: bad, env: PLAIN_ENV });
    t.equal(gone.stderr.toString(), `${tool}: run.ndjson:${line}: not JSON: not json\nstatus 2\n`, `${tool}: the reader gone before all was read: still status 2`);
  }
  // The bad line comes while the output waits for its reader, which then goes: the bad line was reported, the status says so.
  const command = `env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(BIN, 'ndjson-dedupe.js'))} --strict`;
  const first = path.join(dir, 'strict-late.ndjson');
  fs.writeFileSync(first, init + Array.from({ length: 400 }, (_, i) => said(i)).join(''));
  const late = spawnSync(
    'bash',
    ['-c', `(cat "$1"; sleep 1; printf 'not json\\n'; sleep 3) | (${command}; echo "status $?" >&2) | (sleep 2; head -c 10 > /dev/null)`, 'bash', first],
    { env: PLAIN_ENV },
  );
  t.equal(late.stderr.toString(), `ndjson-dedupe: stdin:402: not JSON: not json\nstatus 2\n`, 'the bad line read while the output waits, the reader gone after: status 2');
});

t.test('warnings into a stderr read slowly: all of them arrive; a signal while they wait ends the tool promptly', async (t) => {
  // More warnings than a pipe holds (about 2 MB), then a result.
  const noisy = path.join(dir, 'noisy.ndjson');
  const noise = Array.from({ length: 20000 }, (_, i) => `noise line ${i} ${'x'.repeat(80)}\n`).join('');
  fs.writeFileSync(noisy, `${noise}{"type":"result","subtype":"success","result":"ok","session_id":"s"}\n`);
  for (const [tool, args] of [
    ['ndjson-dedupe', []],
    ['ndjson-result', ['--all']],
    ['ndjson-text', []],
    ['ndjson-tools', []],
  ] as const) {
    const command = `env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(BIN, `${tool}.js`))} ${args.join(' ')}`;
    const slow = spawnSync('bash', ['-c', `${command} "$1" 2>&1 >/dev/null | (sleep 1; grep -c 'not JSON: noise line'); echo "status \${PIPESTATUS[0]}"`, 'bash', noisy], { env: PLAIN_ENV });
    t.equal(slow.stdout.toString(), '20000\nstatus 0\n', `${tool}: every warning, status 0`);
  }
  // The reader never reads: SIGINT ends the wait, with its status.
  const run = startBin('ndjson-dedupe', [noisy]);
  run.child.stderr!.removeAllListeners('data');
  run.child.stderr!.pause();
  const exited = new Promise<number | null>((resolve) => run.child.once('exit', resolve));
  await sleep(1000);
  t.ok(alive(run.child.pid!), 'waiting for stderr to be read');
  const t0 = Date.now();
  run.child.kill('SIGINT');
  t.equal(await exited, 130, 'status 130');
  t.ok(Date.now() - t0 < 3000, `ended ${Date.now() - t0} ms after the signal`);
  run.child.stderr!.resume();
  await run.exited;
});

// The partial-output example up to its second tool call's start: two calls started, one completed.
const PARTIAL = fs.readFileSync(path.join(ROOT, 'test/fixtures/streams/dedupe-partial.ndjson'), 'utf8').split('\n').slice(0, 12).join('\n') + '\n';

t.test('SIGINT and SIGTERM: 130 and 143, promptly, after writing what is owed at the end', async (t) => {
  const cases: Array<{ tool: string; args: string[]; owes: RegExp; what: string }> = [
    { tool: 'ndjson-tools', args: [], owes: /"call_id":"call_w1".*"status":"pending"/, what: 'the pending call' },
    { tool: 'ndjson-tools', args: ['--summary'], owes: /^2 tool calls: 1 success, 1 pending$/m, what: 'the summary' },
    { tool: 'ndjson-tools', args: ['--paths'], owes: /^package\.json$/m, what: 'the paths' },
    { tool: 'ndjson-text', args: [], owes: /^$/, what: 'the final message (none yet: the run is in a tool call)' },
    { tool: 'ndjson-text', args: ['-a'], owes: /Adding the script now\.\n→ edit package\.json \(not completed\)/, what: 'the call not completed' },
    { tool: 'ndjson-dedupe', args: [], owes: /"call_id":"call_w1"/, what: 'every line read' },
    { tool: 'ndjson-dedupe', args: ['--stats'], owes: /"call_id":"call_w1"/, what: 'every line read, and the counts (below)' },
    { tool: 'ndjson-result', args: [], owes: /^$/, what: 'nothing (no result)' },
  ];
  for (const c of cases) {
    for (const [signal, status] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
      const run = startBin(c.tool, c.args);
      // A line that is no event first: its warning says the tool is reading (and has read what came with it).
      run.child.stdin!.write(`Update available: 9.9.9\n${PARTIAL}`);
      t.ok(await waitFor(() => run.stderr().includes('stdin:1: not JSON'), 10000), `${c.tool} is reading`);
      const t0 = Date.now();
      run.child.kill(signal);
      const end = await run.exited;
      const ms = Date.now() - t0;
      t.same({ code: end.code, signal: end.signal }, { code: status, signal: null }, `${c.tool} ${c.args.join(' ')}: ${signal} gives ${status}`);
      t.ok(ms < 2000, `ended ${ms} ms after the signal`);
      t.match(run.stdout(), c.owes, `and wrote ${c.what}`);
      const rest = run.stderr().replace(`${c.tool}: stdin:1: not JSON: Update available: 9.9.9\n`, '');
      if (c.args.includes('--stats')) t.match(rest, /^ndjson-dedupe: stats\n[^]*^ {2}tool_call {2,}\d+ +3 +0$[^]*^ {2}not events {2,}1 /m, 'the counts asked for');
      else t.equal(rest, '', 'nothing else on stderr');
      run.child.stdin!.destroy();
    }
  }
});

const hasMkfifo = spawnSync('sh', ['-c', 'command -v mkfifo']).status === 0;

t.test('a named pipe given as a file whose writer stays: SIGINT ends the run promptly, with what is owed', { skip: hasMkfifo ? false : 'no mkfifo here' }, async (t) => {
  const cases: Array<{ tool: string; args: string[]; owes: RegExp }> = [
    { tool: 'ndjson-tools', args: ['--summary'], owes: /^2 tool calls: 1 success, 1 pending$/m },
    { tool: 'ndjson-text', args: ['-a'], owes: /→ edit package\.json \(not completed\)/ },
  ];
  const part = path.join(dir, 'partial.ndjson');
  fs.writeFileSync(part, `Update available: 9.9.9\n${PARTIAL}`);
  for (const [k, c] of cases.entries()) {
    const fifo = path.join(dir, `fifo-${k}`);
    t.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    // The writer, as `<(cat part; sleep 30)` is: its input written, then open and silent.
    // (Opened for reading and writing, a FIFO opens at once on Linux.)
    const end0 = fs.openSync(fifo, 'r+');
    const writer = spawn('sh', ['-c', `cat "${part}"; exec sleep 30`], { stdio: ['ignore', end0, 'ignore'] });
    fs.closeSync(end0);
    const run = startBin(c.tool, [...c.args, fifo]);
    t.ok(await waitFor(() => run.stderr().includes(`${fifo}:1: not JSON`), 10000), `${c.tool} is reading`);
    const t0 = Date.now();
    run.child.kill('SIGINT');
    const end = await run.exited;
    const ms = Date.now() - t0;
    writer.kill();
    t.same({ code: end.code, signal: end.signal }, { code: 130, signal: null }, `${c.tool}: SIGINT gives 130`);
    t.ok(ms < 2000, `ended ${ms} ms after the signal, the writer still there`);
    t.match(run.stdout(), c.owes, 'and wrote what it owed');
  }
});

t.test('a named pipe no process has opened for writing: SIGTERM still ends every tool, at once', { skip: !hasMkfifo ? 'no mkfifo here' : process.platform !== 'linux' ? 'such a pipe is opened without waiting on Linux only' : false }, async (t) => {
  // The open of such a pipe waits for a writer; had it waited in a thread of libuv's pool, the process could not exit
  // (Node waits for those threads as it exits), and no signal but SIGKILL would end it.
  const noise = path.join(dir, 'noise.ndjson');
  fs.writeFileSync(noise, `Update available: 9.9.9\n${PARTIAL}`);
  for (const [k, tool] of TOOLS.entries()) {
    const fifo = path.join(dir, `writerless-${k}`);
    t.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    const run = startBin(tool, [noise, fifo]);
    t.ok(await waitFor(() => run.stderr().includes(`${noise}:1: not JSON`), 10000), `${tool} has read the file before the pipe`);
    await sleep(300);
    const { end, took } = await terminate(run);
    t.same({ code: end.code, signal: end.signal }, { code: 143, signal: null }, `${tool}: 143`);
    t.ok(took < 3000, `${tool} ended ${took} ms after the signal`);
  }
});

t.test('SIGINT and SIGTERM mid-line: the line cut by the stop is reported as interrupted, not truncated', async (t) => {
  const cut = '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hel';
  for (const tool of TOOLS) {
    for (const [signal, status] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
      const run = startBin(tool, []);
      // One write, smaller than a pipe's atomic size: the warning about line 1 says line 2's start was read too.
      run.child.stdin!.write(`Update available: 9.9.9\n${cut}`);
      t.ok(await waitFor(() => run.stderr().includes('stdin:1: not JSON'), 10000), `${tool} is reading`);
      run.child.kill(signal);
      const end = await run.exited;
      t.same({ code: end.code, signal: end.signal }, { code: status, signal: null }, `${tool}: ${signal} gives ${status}`);
      t.equal(
        run.stderr(),
        `${tool}: stdin:1: not JSON: Update available: 9.9.9\n${tool}: stdin:2: interrupted: {"type":"assistant","message":{"role":"assistant","content":…\n`,
        `${tool}: the cut line, as interrupted`,
      );
      run.child.stdin!.destroy();
    }
  }
});

t.test('a signal in process: the input ends where it is, the run ends with its status', async (t) => {
  for (const [signal, status] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    const signals = new EventEmitter();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    stdout.on('data', (d) => (out += d));
    stdin.write(PARTIAL);
    const done = toolsMain(['--summary'], { stdin, stdout, stderr, env: {}, signals });
    await waitFor(() => signals.listenerCount(signal) > 0, 5000);
    await sleep(50);
    signals.emit(signal, signal);
    t.equal(await done, status, `${signal}: ${status}`);
    t.match(out, /^2 tool calls: 1 success, 1 pending$/m, 'the summary of what was read');
    t.equal(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM'), 0, 'no handler left behind');
  }
});

/** A stand-in for the process: signals emitted by the test, and what the catcher sends itself. */
function fakeProcess(): EventEmitter & SignalTarget & { killed: Array<StopSignal | 'SIGHUP'> } {
  const target = Object.assign(new EventEmitter(), { pid: 4242, killed: [] as Array<StopSignal | 'SIGHUP'> });
  return Object.assign(target, { kill: (pid: number, signal: StopSignal | 'SIGHUP') => pid === 4242 && target.killed.push(signal) });
}

t.test("SIGHUP: caught only while an action waits for it, which is done before the process ends by it", async (t) => {
  const target = fakeProcess();
  const signals = new ProcessSignals(target);
  const done: string[] = [];
  const dropFirst = signals.atHangup(() => void done.push('first'));
  const dropSecond = signals.atHangup(() => void done.push('second'));
  t.equal(target.listenerCount('SIGHUP'), 1, 'caught once, for both');
  dropFirst();
  t.equal(target.listenerCount('SIGHUP'), 1, 'still caught for the other');
  dropSecond();
  t.equal(target.listenerCount('SIGHUP'), 0, 'no longer caught: its default action ends the process');
  signals.atHangup(() => void done.push('third'));
  target.emit('SIGHUP', 'SIGHUP');
  t.same(done, ['third'], 'the action waiting is done, those taken back are not');
  t.same(target.killed, ['SIGHUP'], 'then the process ends by it');
  t.equal(target.listenerCount('SIGHUP'), 0, 'with no handler left');
});

t.test("the process's signals: caught from the first listener on, the first kept, a second ending the process", async (t) => {
  const target = fakeProcess();
  const signals = new ProcessSignals(target);
  t.equal(target.listenerCount('SIGTERM'), 0, 'nothing caught before a tool listens');
  const heard: StopSignal[] = [];
  const listener = (s: StopSignal): void => void heard.push(s);
  signals.on('SIGTERM', listener);
  signals.off('SIGTERM', listener);
  t.equal(target.listenerCount('SIGTERM') + target.listenerCount('SIGINT'), 2, 'caught once a tool has listened, and after it stops');
  target.emit('SIGTERM', 'SIGTERM');
  t.same(heard, [], 'no listener left to hear it');
  t.equal(signals.received, 'SIGTERM', 'but it is kept');
  t.equal(finalStatus(0, signals), 143, 'and the run ends with its status, not the verdict');
  t.equal(finalStatus(3, signals), 143, 'whatever the verdict');
  t.same(target.killed, [], 'the process is not ended by the first');
  const done: string[] = [];
  signals.atLast((s) => void done.push(`${s}, then ${target.killed.length} killed`));
  const dropped = signals.atLast(() => void done.push('dropped'));
  signals.atLast(() => {
    throw new Error('a failing action');
  });
  dropped();
  target.emit('SIGINT', 'SIGINT');
  t.same(target.killed, ['SIGINT'], 'a second ends the process');
  t.same(done, ['SIGINT, then 0 killed'], 'once the actions given are done, a failing one not holding it back; one taken back is not done');
  t.equal(target.listenerCount('SIGTERM') + target.listenerCount('SIGINT'), 0, 'with no handler left, so that its default action does');
  t.equal(finalStatus(4, new ProcessSignals(fakeProcess())), 4, 'no signal: the verdict');
  t.equal(finalStatus(4, undefined), 4, 'no signals watched: the verdict');
});

t.test("a command's action at a second signal is taken back once it has ended, or could not start", async (t) => {
  const held = new Set<unknown>();
  const signals: SignalSource = {
    on: () => undefined,
    off: () => undefined,
    atLast: (action) => {
      held.add(action);
      return () => void held.delete(action);
    },
  };
  const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), env: process.env, signals };
  for (const argv of [[path.join(dir, 'no-such-agent')], [process.execPath, '-e', '']]) {
    const command = startCommand(argv, io, 'ndjson-text');
    command.stdout.resume();
    await command.exited;
    await command.ended;
    t.equal(held.size, 0, `${path.basename(argv[0]!)}: none left held`);
  }
});

t.test('a signal kept before a run listens stops it at once', async (t) => {
  const target = fakeProcess();
  const signals = new ProcessSignals(target);
  const noop = (): void => {};
  signals.on('SIGINT', noop);
  signals.off('SIGINT', noop);
  target.emit('SIGINT', 'SIGINT');
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  stdout.resume();
  stdin.write(PARTIAL);
  // The input never ends: only the signal ends the run.
  const code = await Promise.race([toolsMain(['--summary'], { stdin, stdout, stderr: new PassThrough(), env: {}, signals }), sleep(5000).then(() => 'still running')]);
  t.equal(code, 130, 'ended by the signal kept');
  t.same(target.killed, [], 'not taken for a second signal');
});

/** Sends `run` SIGTERM (SIGKILL 10 seconds on, should it not end): how it ended, and how long after the signal. */
async function terminate(run: ReturnType<typeof startBin>) {
  const t0 = Date.now();
  run.child.kill('SIGTERM');
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 10000);
  const end = await run.exited;
  clearTimeout(timer);
  return { end, took: Date.now() - t0 };
}

t.test('SIGTERM while the reader has stopped reading: still ends promptly', async (t) => {
  for (const tool of TOOLS) {
    const run = startBin(tool, tool === 'ndjson-result' ? ['--all', '--json', LARGE] : tool === 'ndjson-text' ? ['-a', LARGE] : [LARGE]);
    // Once it writes, the reader stops reading, and the pipe fills.
    await new Promise((resolve) => run.child.stdout!.once('data', resolve));
    run.child.stdout!.pause();
    await sleep(500);
    const { end, took } = await terminate(run);
    t.same({ code: end.code, signal: end.signal }, { code: 143, signal: null }, `${tool}: 143`);
    t.ok(took < 3000, `${tool} ended ${took} ms after the signal`);
  }
});

t.test('a second signal ends the tool at once', async (t) => {
  const run = startBin('ndjson-dedupe', [LARGE]);
  await new Promise((resolve) => run.child.stdout!.once('data', resolve));
  run.child.stdout!.pause();
  await sleep(300);
  const t0 = Date.now();
  run.child.kill('SIGTERM');
  // Not at once: the same signal again within SAME_SIGNAL_MS is the first sent twice (see the test of timeout's two).
  await sleep(3 * SAME_SIGNAL_MS);
  run.child.kill('SIGTERM');
  const end = await run.exited;
  t.same({ code: end.code, signal: end.signal }, { code: null, signal: 'SIGTERM' }, 'killed by the second signal');
  t.ok(Date.now() - t0 < 900, `before the one second the first allows (${Date.now() - t0} ms)`);
});

/**
 * Runs `tool` on an agent (JavaScript for `node -e`, `setup` first) that prints a line that is no event and a started
 * call, then hangs; once the tool reads it, sends the tool SIGTERM. Gives whether the tool was reading, how it ended,
 * and its run.
 */
async function stopWithAgent(tool: string, setup: string, stop = async (run: ReturnType<typeof startBin>) => void run.child.kill('SIGTERM')) {
  const agent = `${setup} process.stdout.write(${JSON.stringify(`Update available\n${PARTIAL}`)}); setInterval(() => {}, 1000);`;
  const run = startBin(tool, [...(tool === 'ndjson-text' ? ['-a'] : []), '--', process.execPath, '-e', agent]);
  const reading = await waitFor(() => run.stderr().includes('not JSON'), 10000);
  await stop(run);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 10000);
  const end = await run.exited;
  clearTimeout(timer);
  return { reading, code: end.code, run };
}

t.test('SIGTERM with a command after --: the command is ended too', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-text']) {
    // An agent that says where it is.
    const pidFile = path.join(dir, `agent-${tool}.pid`);
    const { reading, code } = await stopWithAgent(tool, `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));`);
    t.ok(reading, `${tool} is reading the agent's output`);
    t.equal(code, 143, `${tool} -- agent: 143`);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    t.ok(await waitFor(() => !alive(pid), 2000), 'the agent got the signal and ended');
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
});

t.test('a second signal with a command after -- still at work: the command killed, and said so, as the tool ends at once', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-text']) {
    // An agent that ignores SIGTERM, as one busy saving its session would for a while, saying so in a line left open.
    const pidFile = path.join(dir, `deaf-${tool}.pid`);
    const { reading, code, run } = await stopWithAgent(
      tool,
      `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.on('SIGTERM', () => process.stderr.write('saving the session'));`,
      async (run) => {
        run.child.kill('SIGTERM');
        // The second once the agent's words have come through: the line they leave open is there to be ended.
        await waitFor(() => run.stderr().includes('saving the session'), 5000);
        await sleep(3 * SAME_SIGNAL_MS);
        run.child.kill('SIGTERM');
      },
    );
    t.ok(reading, `${tool} is reading the agent's output`);
    t.same({ code, signal: (await run.exited).signal }, { code: null, signal: 'SIGTERM' }, `${tool}: ended by the second signal`);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    const gone = await waitFor(() => !alive(pid), 2000);
    if (!gone) process.kill(pid, 'SIGKILL');
    t.ok(gone, `${tool}: the agent is not left running`);
    // The line its stderr left open is ended first.
    t.match(run.stderr(), new RegExp(`\\nsaving the session\\n${tool}: \\S+ killed \\(SIGKILL\\): a second SIGTERM came before it ended\\n$`), `${tool}: the kill is reported`);
  }
});

t.test('SIGTERM with a command after --: the line its output was cut in is reported as interrupted', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-text']) {
    const agent = `process.stdout.write(${JSON.stringify('Update available\n{"type":"assistant","message":{"role":"assistant","content":[')}); setInterval(() => {}, 1000);`;
    const run = startBin(tool, ['--', process.execPath, '-e', agent]);
    t.ok(await waitFor(() => run.stderr().includes(':1: not JSON'), 10000), `${tool} is reading the agent's output`);
    run.child.kill('SIGTERM');
    const end = await run.exited;
    t.equal(end.code, 143, `${tool} -- agent: 143`);
    t.match(run.stderr(), /:2: interrupted: \{"type":"assistant","message":\{"role":"assistant","content":…\n$/, `${tool}: the cut line, as interrupted`);
    t.notMatch(run.stderr(), /truncated/);
  }
});

t.test('SIGTERM with a command after --: the tool waits for the command to end, passing its last words through', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-text']) {
    // An agent that, told to stop, takes its time: it says so on stderr, then saves its session.
    const saved = path.join(dir, `saved-${tool}`);
    const { reading, code, run } = await stopWithAgent(
      tool,
      `process.on('SIGTERM', () => setTimeout(() => { process.stderr.write('saving the session\\n'); require('fs').writeFileSync(${JSON.stringify(saved)}, 'x'); process.exit(0); }, 300));`,
    );
    t.ok(reading, `${tool} is reading the agent's output`);
    t.equal(code, 143, `${tool} -- agent: 143`);
    t.ok(fs.existsSync(saved), `${tool}: the agent had ended when the tool did`);
    t.match(run.stderr(), /saving the session\n/, `${tool}: its last words passed through`);
  }
});

t.test("SIGTERM twice at once, as GNU timeout sends it (to the tool, then to its process group): one signal, the command's time to end kept", async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-text']) {
    const saved = path.join(dir, `saved-twice-${tool}`);
    const { reading, code, run } = await stopWithAgent(
      tool,
      `process.on('SIGTERM', () => setTimeout(() => { process.stderr.write('saving the session\\n'); require('fs').writeFileSync(${JSON.stringify(saved)}, 'x'); process.exit(0); }, 300));`,
      async (run) => {
        run.child.kill('SIGTERM');
        run.child.kill('SIGTERM');
      },
    );
    t.ok(reading, `${tool} is reading the agent's output`);
    t.equal(code, 143, `${tool} -- agent: 143, not killed by a second signal`);
    t.ok(fs.existsSync(saved), `${tool}: the agent saved its session`);
    t.notMatch(run.stderr(), /killed \(SIGKILL\)/, `${tool}: the agent not killed`);
  }
});

t.test('the same signal again within SAME_SIGNAL_MS is the first sent twice; later, or another signal, is a second', async (t) => {
  for (const [again, after, second] of [
    ['SIGTERM', SAME_SIGNAL_MS / 2, false],
    ['SIGTERM', SAME_SIGNAL_MS, true],
    ['SIGINT', 1, true],
  ] as const) {
    const target = fakeProcess();
    let clock = 1000;
    const signals = new ProcessSignals(target, () => clock);
    const heard: StopSignal[] = [];
    signals.on('SIGTERM', (s) => void heard.push(s));
    target.emit('SIGTERM', 'SIGTERM');
    clock += after;
    target.emit(again, again);
    t.same(heard, ['SIGTERM'], `${again} ${after} ms after SIGTERM: the first heard once`);
    t.same(target.killed, second ? [again] : [], `${again} ${after} ms after SIGTERM: ${second ? 'a second, ending the process' : 'no second'}`);
  }
});

t.test('SIGTERM once the command has ended, a process it started holding its stdout or writing on its stderr: the tool ends at once', async (t) => {
  for (const [held, stdio] of [
    ['stdout', "['ignore', 'inherit', 'ignore']"],
    ['stderr', "['ignore', 'ignore', 'inherit']"],
  ] as const) {
    const pidFile = path.join(dir, `server-${held}.pid`);
    // A server that logs, started by the agent and left running on the agent's pipe.
    const server = `setInterval(() => process.${held}.write('server log\\n'), 50)`;
    const agent = `const c = require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(server)}], { stdio: ${stdio} }); c.unref(); require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); process.stdout.write(${JSON.stringify(PARTIAL)}, () => process.exit(0));`;
    const run = startBin('ndjson-text', ['--', process.execPath, '-e', agent]);
    t.teardown(() => {
      try {
        process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGKILL');
      } catch {
        // Gone already.
      }
    });
    t.ok(await waitFor(() => fs.existsSync(pidFile) && run.stderr().includes('server log'), 10000), `${held}: the server is at work`);
    await sleep(300);
    const { end, took } = await terminate(run);
    t.equal(end.code, 143, `${held}: 143`);
    t.ok(took < 2500, `${held}: ended ${took} ms after the signal, not the 5 seconds a command at work is given`);
    t.match(run.stderr(), held === 'stdout' ? /has ended, but a process it started still holds its output open: left running\n/ : /started still writes on its stderr: no longer waited for\n/, `${held}: said so`);
  }
});

/** True once the process `pid` has ended: gone, or a zombie its parent, gone too, left for init to reap. */
function ended(pid: number): boolean {
  try {
    return /^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return !alive(pid);
  }
}

t.test('SIGHUP to the tool alone, with a command after --: the command gets it too, and the tool ends by it', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-text']) {
    const pidFile = path.join(dir, `hangup-${tool}.pid`);
    const { reading, run } = await stopWithAgent(tool, `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));`, async (run) => {
      run.child.kill('SIGHUP');
    });
    t.ok(reading, `${tool} is reading the agent's output`);
    t.equal((await run.exited).signal, 'SIGHUP', `${tool}: ended by SIGHUP`);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    const gone = await waitFor(() => ended(pid), 2000);
    if (!gone) process.kill(pid, 'SIGKILL');
    t.ok(gone, `${tool}: the agent is not left at work`);
  }
});

t.test('SIGTERM with a command after --, once its output has ended: the command still gets it', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-text']) {
    // An agent that writes its whole stream, closes its stdout, and goes on.
    const pidFile = path.join(dir, `lingering-${tool}.pid`);
    const stream = '{"type":"system","subtype":"init","session_id":"s"}\n{"type":"result","subtype":"success","result":"done","session_id":"s"}\n';
    const agent = `process.stdout.write(${JSON.stringify(stream)}, () => { require('fs').closeSync(1); require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000); });`;
    const run = startBin(tool, ['--', process.execPath, '-e', agent]);
    t.ok(await waitFor(() => run.stdout().includes('done') && fs.existsSync(pidFile), 10000), `${tool} has read the whole stream`);
    run.child.kill('SIGTERM');
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 10000);
    const end = await run.exited;
    clearTimeout(timer);
    t.equal(end.code, 143, `${tool} -- agent: 143`);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    t.ok(await waitFor(() => !alive(pid), 2000), 'the agent got the signal and ended');
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
});

t.test('SIGTERM with a command after --: what the command writes as it stops is read, not cut off by a closed pipe', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-text']) {
    // An agent that, told to stop, writes a last event to stdout and then says it saved the session.
    const { reading, code, run } = await stopWithAgent(
      tool,
      `process.on('SIGTERM', () => { process.stderr.write('stopping\\n'); setTimeout(() => process.stdout.write('{"type":"result"}\\n', (error) => { process.stderr.write(error ? \`write failed: \${error.code}\\n\` : 'session saved\\n'); process.exit(0); }), 200); });`,
    );
    t.ok(reading, `${tool} is reading the agent's output`);
    t.equal(code, 143, `${tool} -- agent: 143`);
    t.match(run.stderr(), /stopping\nsession saved\n/, `${tool}: the agent's write after the signal did not fail`);
    t.notMatch(run.stderr(), /EPIPE/);
  }
});

t.test('--strict with a command after --: the command is stopped at the bad line, not left writing into a closed pipe', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-text']) {
    const pidFile = path.join(dir, `strict-${tool}.pid`);
    const line = JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'x' }] }, session_id: 's' });
    const agent = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); console.log('Update available'); setInterval(() => console.log(${JSON.stringify(line)}), 20);`;
    const run = startBin(tool, ['--strict', '--', process.execPath, '-e', agent]);
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 10000);
    const end = await run.exited;
    clearTimeout(timer);
    t.equal(end.code, 2, `${tool} --strict -- agent: 2`);
    t.match(run.stderr(), /:1: not JSON: Update available\n$/, `${tool}: the bad line, and nothing of the agent after it`);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    t.notOk(alive(pid), 'the agent had ended when the tool did');
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
});

t.test('--strict with a command after -- whose output a process it started holds: the run ends without it, saying so', async (t) => {
  // A wrapper (`sh -c 'agent | tee log'`) that SIGTERM ends, its agent left holding the output: the run gives up on it, as after a signal.
  const runs = ['ndjson-result', 'ndjson-text'].map((tool) => {
    const t0 = Date.now();
    const run = startBin(tool, ['--strict', '--', 'sh', '-c', 'echo junk; sleep 20; :']);
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 25000);
    return run.exited.then((end) => (clearTimeout(timer), { tool, run, end, ms: Date.now() - t0 }));
  });
  for (const { tool, run, end, ms } of await Promise.all(runs)) {
    t.equal(end.code, 2, `${tool} --strict -- sh: 2`);
    t.ok(ms < 12000, `${tool} ended without waiting for the process left running (${ms} ms)`);
    t.match(run.stderr(), /:1: not JSON: junk\n.*still holds its output open: left running\n$/s, `${tool}: the bad line, then what was left running`);
  }
});

t.test('a command after -- that ends while a process it started holds its stderr open: the run ends with it', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-text']) {
    const stream = '{"type":"system","subtype":"init","session_id":"s"}\n{"type":"result","subtype":"success","result":"done","session_id":"s"}\n';
    // The agent starts a helper that outlives it with its stderr, and only its stderr, still open.
    const helper = `require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 8000)'], { stdio: ['ignore', 'ignore', 'inherit'], detached: true }).unref();`;
    const agent = `${helper} process.stdout.write(${JSON.stringify(stream)});`;
    const t0 = Date.now();
    const run = startBin(tool, ['--', process.execPath, '-e', agent]);
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 20000);
    const end = await run.exited;
    clearTimeout(timer);
    t.equal(end.code, 0, `${tool} -- agent: 0`);
    t.equal(run.stdout(), 'done\n');
    t.ok(Date.now() - t0 < 4000, `${tool} did not wait for the helper (${Date.now() - t0} ms)`);
  }
});

t.test('a command after -- whose stderr a process it started goes on writing after it ends: every line is passed through', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-text']) {
    const stream = '{"type":"system","subtype":"init","session_id":"s"}\n{"type":"result","subtype":"success","result":"done","session_id":"s"}\n';
    // A wrapper's filter of the agent's stderr: it writes a line every 60 ms, for longer than the agent lives (which
    // ends once the filter has written its first line and made the file `ready`).
    const ready = path.join(dir, `${tool}-filter.ready`);
    const filter = `let i = 0; const line = () => process.stderr.write('log ' + ++i + '\\n'); line(); require('fs').writeFileSync(${JSON.stringify(ready)}, ''); const t = setInterval(() => { line(); if (i === 8) clearInterval(t); }, 60);`;
    const wait = `const fs = require('fs'); const t = setInterval(() => { if (!fs.existsSync(${JSON.stringify(ready)})) return; clearInterval(t); process.stdout.write(${JSON.stringify(stream)}, () => { process.exitCode = 1; }); }, 10);`;
    const agent = `require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(filter)}], { stdio: ['ignore', 'ignore', 'inherit'] }).unref(); ${wait}`;
    const run = startBin(tool, ['--', process.execPath, '-e', agent]);
    const end = await run.exited;
    t.equal(end.code, 5, `${tool} -- agent: 5, its failure`);
    t.match(run.stderr(), /log 1\nlog 2\nlog 3\nlog 4\nlog 5\nlog 6\nlog 7\nlog 8\n.*exited with status 1\n$/s, `${tool}: all its lines, then its status`);
  }
});

t.test('a command after -- whose stderr a process it started never stops writing: the run ends 5 seconds on, saying so', async (t) => {
  const runs = ['ndjson-result', 'ndjson-text'].map((tool) => {
    const stream = '{"type":"system","subtype":"init","session_id":"s"}\n{"type":"result","subtype":"success","result":"done","session_id":"s"}\n';
    // A server the agent left running, logging on the stderr it inherited every 50 ms, for longer than the test waits;
    // the agent ends once the server has written its first line (and made the file `ready`).
    const ready = path.join(dir, `${tool}-server.ready`);
    const server = `setInterval(() => process.stderr.write('server log\\n'), 50); process.stderr.write('server log\\n', () => require('fs').writeFileSync(${JSON.stringify(ready)}, '')); setTimeout(() => process.exit(0), 30000);`;
    const wait = `const fs = require('fs'); const t = setInterval(() => { if (!fs.existsSync(${JSON.stringify(ready)})) return; clearInterval(t); process.stdout.write(${JSON.stringify(stream)}); }, 10);`;
    const agent = `require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(server)}], { stdio: ['ignore', 'ignore', 'inherit'], detached: true }).unref(); ${wait}`;
    const t0 = Date.now();
    const run = startBin(tool, ['--', process.execPath, '-e', agent]);
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 25000);
    return run.exited.then((end) => (clearTimeout(timer), { tool, run, end, ms: Date.now() - t0 }));
  });
  for (const { tool, run, end, ms } of await Promise.all(runs)) {
    t.equal(end.code, 0, `${tool} -- agent: 0`);
    t.equal(run.stdout(), 'done\n');
    t.ok(ms >= 4500 && ms < 15000, `${tool} waited 5 seconds for the server's stderr, not for ever (${ms} ms)`);
    t.match(run.stderr(), /^server log\n(?:server log\n)*[^\n]*: a process [^\n]* started still writes on its stderr: no longer waited for\n/, `${tool}: its lines, then what was left writing`);
  }
});

t.test('--strict with a command after -- that had ended its own way: its failure is still reported', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-text']) {
    // The agent writes a session's start and fails; a process it started writes the bad line after it has ended.
    const late = `setTimeout(() => process.stdout.write('not json\\n'), 300);`;
    const agent = `require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(late)}], { stdio: ['ignore', 'inherit', 'ignore'] }).unref(); process.stdout.write('{"type":"system","subtype":"init","session_id":"s"}\\n', () => process.exit(3));`;
    const run = startBin(tool, ['--strict', '--', process.execPath, '-e', agent]);
    const end = await run.exited;
    t.equal(end.code, 2, `${tool} --strict -- agent: 2`);
    t.match(run.stderr(), /:2: not JSON: not json\n.*exited with status 3\n$/s, `${tool}: the bad line, then the agent's own failure`);
  }
});

t.test('inputs that cannot be read: one clear line each', async (t) => {
  const missing = path.join(dir, 'missing.ndjson');
  const good = path.join(dir, 'good.ndjson');
  fs.copyFileSync(path.join(ROOT, 'test/fixtures/streams/basic.ndjson'), good);
  const loop = path.join(dir, 'loop.ndjson');
  fs.symlinkSync(loop, loop);
  const long = path.join(dir, 'x'.repeat(300));
  for (const tool of TOOLS) {
    // stdin at its end at once, or not open at all.
    for (const redirect of ['< /dev/null', '<&-']) {
      const ran = spawnSync('bash', ['-c', `exec env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(BIN, `${tool}.js`))} ${redirect}`], { env: PLAIN_ENV, encoding: 'utf8' });
      const noResult = tool === 'ndjson-result' || tool === 'ndjson-text';
      t.same(
        { status: ran.status, stdout: ran.stdout, stderr: ran.stderr },
        { status: noResult ? 4 : 0, stdout: '', stderr: noResult ? `${tool}: no result event: the input held no events of a run\n` : '' },
        `${tool} ${redirect}`,
      );
    }
    for (const [what, file, message] of [
      ['a missing file', missing, 'No such file or directory'],
      ['a directory', dir, 'Is a directory'],
      ['a path through a file', path.join(good, 'x'), 'Not a directory'],
      // Errors Node words its own way (`ELOOP: too many symbolic links encountered, open '…'`), in the C library's words.
      ['a symbolic link to itself', loop, 'Too many levels of symbolic links'],
      ['a name too long', long, 'File name too long'],
    ] as const) {
      const ran = spawnSync(...plainCommand(tool, [file, good]), { env: PLAIN_ENV, encoding: 'utf8' });
      t.equal(ran.status, 2, `${tool}: ${what}: status 2`);
      t.match(ran.stderr, new RegExp(`^${tool}: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${message}\n`), `${tool}: ${what}: one line, first`);
      // (A code starts the message or follows a space or a colon: a temporary directory's random name may hold `…ZEV: `.)
      t.notMatch(ran.stderr, /(?:^|[\s:])E[A-Z]{2,}[:,] /m, "no code of Node's message");
      t.notMatch(ran.stderr, /\n {4}at |Error:/, 'no stack trace');
      // Like cat(1): the next file is still read.
      if (tool === 'ndjson-result') t.match(ran.stdout, /^I'll read package\.json first\./, 'the next file is read');
    }
  }
});

t.test('an input that is the file the output goes to (`f >> f`): not read, as cat(1) has it', async (t) => {
  const good = path.join(dir, 'good-out.ndjson');
  const stream = fs.readFileSync(path.join(ROOT, 'test/fixtures/streams/basic.ndjson'));
  fs.writeFileSync(good, stream);
  const out = path.join(dir, 'out.ndjson');
  const run = (tool: string, redirect: string): { status: number | null; stderr: string; file: Buffer; good: string } => {
    // A file size limit, should the output be read back after all (ndjson-dedupe would fill the disk).
    const command = `ulimit -f 10240; exec env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(BIN, `${tool}.js`))} ${redirect}`;
    const ran = spawnSync('bash', ['-c', command], { env: PLAIN_ENV, encoding: 'utf8', timeout: 20_000 });
    const alone = spawnSync(...plainCommand(tool, [good]), { env: PLAIN_ENV, encoding: 'utf8' });
    return { status: ran.status, stderr: ran.stderr, file: fs.readFileSync(out), good: alone.stdout };
  };
  for (const tool of TOOLS) {
    // Appended to: without the check, ndjson-dedupe would copy its own output back in until the disk is full.
    fs.writeFileSync(out, stream);
    let ran = run(tool, `${JSON.stringify(out)} >> ${JSON.stringify(out)}`);
    t.same({ status: ran.status, stderr: ran.stderr }, { status: 2, stderr: `${tool}: ${out}: input file is output file\n` }, `${tool} f >> f: one line, status 2`);
    t.ok(ran.file.equals(stream), `${tool} f >> f: the file is left as it was`);
    fs.writeFileSync(out, stream);
    ran = run(tool, `< ${JSON.stringify(out)} >> ${JSON.stringify(out)}`);
    t.same({ status: ran.status, stderr: ran.stderr }, { status: 2, stderr: `${tool}: stdin: input file is output file\n` }, `${tool} < f >> f`);
    t.ok(ran.file.equals(stream), `${tool} < f >> f: the file is left as it was`);
    // The other inputs are read, as they would be alone.
    fs.writeFileSync(out, stream);
    ran = run(tool, `${JSON.stringify(good)} ${JSON.stringify(out)} >> ${JSON.stringify(out)}`);
    t.same({ status: ran.status, stderr: ran.stderr }, { status: 2, stderr: `${tool}: ${out}: input file is output file\n` }, `${tool} g f >> f`);
    t.equal(ran.file.toString(), `${stream}${ran.good}`, `${tool} g f >> f: g read as alone, its output after what f held`);
    // Emptied by the shell first: nothing to read back, read as an empty file is.
    fs.writeFileSync(out, stream);
    ran = run(tool, `${JSON.stringify(out)} > ${JSON.stringify(out)}`);
    const empty = spawnSync(...plainCommand(tool, ['/dev/null']), { env: PLAIN_ENV, encoding: 'utf8' });
    t.same({ status: ran.status, stderr: ran.stderr.split(out).join('/dev/null'), file: ran.file.toString() }, { status: empty.status, stderr: empty.stderr, file: empty.stdout }, `${tool} f > f: f read as empty`);
  }
});

t.test('a named pipe as a file: read once, as its writer writes it', { skip: process.platform === 'win32' ? 'no mkfifo' : false }, async (t) => {
  const fifo = path.join(dir, 'fifo');
  const stream = path.join(ROOT, 'test/fixtures/streams/basic.ndjson');
  for (const tool of TOOLS) {
    fs.rmSync(fifo, { force: true });
    t.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    // The writer waits for the reader to open the pipe; the tool must read it as it is, once (ndjson-result does not read it from its end).
    const writer = spawn('sh', ['-c', `cat ${JSON.stringify(stream)} > ${JSON.stringify(fifo)}`]);
    const ran = startBin(tool, [fifo]);
    const timer = setTimeout(() => ran.child.kill('SIGKILL'), 20000);
    const { code, signal } = await ran.exited;
    clearTimeout(timer);
    writer.kill();
    t.same({ code, signal, stderr: ran.stderr() }, { code: 0, signal: null, stderr: '' }, `${tool} ends, status 0`);
    const direct = spawnSync(...plainCommand(tool, [stream]), { env: PLAIN_ENV, encoding: 'utf8' });
    t.equal(ran.stdout().split(fifo).join(stream), direct.stdout, `${tool}: what it prints from the file itself (records name their source)`);
  }
});

t.test('an unreadable file: Permission denied, status 2', async (t) => {
  const locked = path.join(dir, 'locked.ndjson');
  fs.writeFileSync(locked, fs.readFileSync(path.join(ROOT, 'test/fixtures/streams/basic.ndjson')));
  fs.chmodSync(locked, 0o000);
  fs.chmodSync(dir, 0o755);
  // Root reads any file: the tools then run as nobody, who cannot.
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  if (process.getuid?.() === 0) {
    const probe = spawnSync(...plainCommand('ndjson-tools', ['--version']), { env: PLAIN_ENV, ...asNobody });
    if (probe.status !== 0) {
      t.skip('running as root, and the user nobody cannot read the repository to run the tools as another user');
      return;
    }
  }
  for (const tool of TOOLS) {
    const ran = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(...plainCommand(tool, [locked]), { env: PLAIN_ENV, ...asNobody });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
    t.same(ran, { code: 2, stderr: `${tool}: ${locked}: Permission denied\n` }, tool);
  }
});

/** `tool args FILES… 2>&1`, as a shell runs it, into a pipe (`| cat`) or a file (`> out`): what the one place holds. */
function oneplace(tool: string, args: readonly string[], files: readonly string[], into: 'pipe' | 'file'): string {
  const command = `env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(BIN, `${tool}.js`))} ${args.join(' ')} "$@"`;
  const out = path.join(dir, 'oneplace.out');
  const script = into === 'pipe' ? `${command} 2>&1 | cat` : `${command} > ${JSON.stringify(out)} 2>&1; cat ${JSON.stringify(out)}`;
  return spawnSync('bash', ['-c', script, 'bash', ...files], { env: PLAIN_ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout;
}

t.test('stdout and stderr one place (2>&1): each warning stands where its line was read', async (t) => {
  // Several MiB, read in several chunks: a line that is not JSON every 997 lines, most of them mid-chunk.
  const lines = manySessions(3e6).toString('utf8').split('\n');
  const input: string[] = [];
  lines.forEach((line, i) => {
    if (i > 0 && i % 997 === 0) input.push(`noise ${i}`);
    input.push(line);
  });
  const noisy = path.join(dir, 'noisy.ndjson');
  fs.writeFileSync(noisy, input.join('\n'));
  const noise = input.filter((line) => line.startsWith('noise ')).length;
  t.ok(noise > 10, `${noise} lines of noise`);
  for (const into of ['pipe', 'file'] as const) {
    // ndjson-dedupe copies lines in order: each output line is found in the input after the one before it, and a warning
    // about line N comes after the output of the lines before N and before that of the lines after it.
    const out = oneplace('ndjson-dedupe', [], [noisy], into).split('\n');
    let at = 0;
    let warnings = 0;
    let misplaced = 0;
    for (const line of out) {
      const warning = /^ndjson-dedupe: .*:(\d+): not JSON: noise \d+$/.exec(line);
      if (warning !== null) {
        const n = Number(warning[1]) - 1;
        warnings++;
        if (n < at || input.slice(at, n).some((l) => l.startsWith('noise '))) misplaced++;
        at = n + 1;
        continue;
      }
      if (line === '') continue;
      let next = at;
      while (next < input.length && input[next] !== line) next++;
      // Passing a line of noise whose warning has not come yet is out of order too.
      if (next === input.length || input.slice(at, next).some((l) => l.startsWith('noise '))) misplaced++;
      else at = next + 1;
    }
    t.equal(warnings, noise, `${into}: every line of noise warned about`);
    t.equal(misplaced, 0, `${into}: every warning, and every line, in the order of the input`);
  }
  // ndjson-text -a: a warning that comes while the text is mid-line stands on a line of its own.
  const text = path.join(dir, 'midline.ndjson');
  const events = fs.readFileSync(path.join(ROOT, 'test/fixtures/streams/text-complete.ndjson'), 'utf8').split('\n');
  fs.writeFileSync(text, [...events.slice(0, 3), 'Update available 1.2.3', ...events.slice(3)].join('\n'));
  for (const into of ['pipe', 'file'] as const) {
    t.match(
      oneplace('ndjson-text', ['-a'], [text], into),
      // The line end the warning wrote stands for the text's: the tool line sits under it, as under the text.
      /^> Put the API key[^\n]*\n\nI'll read the config and list the docs in parallel\.\nndjson-text: [^\n]*midline\.ndjson:4: not JSON: Update available 1\.2\.3\n→ shell ls docs/,
      `ndjson-text -a, ${into}`,
    );
  }
});

t.test('stdout and stderr one place (2>&1): an input that cannot be read is reported after the output of those before it', async (t) => {
  const good = path.join(ROOT, 'test/fixtures/streams/basic.ndjson');
  const missing = path.join(dir, 'missing.ndjson');
  // MANY is read in several chunks: its output is still being made when the next file is opened.
  const many = spawnSync(...plainCommand('ndjson-dedupe', [MANY]), { env: PLAIN_ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout;
  const events = fs.readFileSync(good, 'utf8');
  for (const into of ['pipe', 'file'] as const) {
    const out = oneplace('ndjson-dedupe', [], [MANY, missing, good], into);
    t.ok(out === `${many}ndjson-dedupe: ${missing}: No such file or directory\n${events}`, `ndjson-dedupe, ${into}: the error after the output of the file before it (at ${out.indexOf('ndjson-dedupe:')} of ${out.length})`);
    const audit = oneplace('ndjson-tools', [], [good, missing], into).split('\n');
    t.equal(audit.at(-2), `ndjson-tools: ${missing}: No such file or directory`, `ndjson-tools, ${into}: the error after the audit of the file before it`);
    t.ok(audit.length > 2 && audit.slice(0, -2).every((line) => line.startsWith('{')), `ndjson-tools, ${into}`);
  }
});

t.test('SIGINT while a large regular file is read into a file or /dev/null: 130, promptly', async (t) => {
  // No pipe on either side holds the tool back: only its own reads give a signal the chance to be seen.
  const big = path.join(dir, 'big.ndjson');
  const many = fs.readFileSync(MANY);
  fs.writeFileSync(big, Buffer.concat([Buffer.from('Update available: 9.9.9\n'), ...Array.from({ length: 40 }, () => many)]));
  for (const [tool, args] of [['ndjson-tools', ['--summary']], ['ndjson-dedupe', []], ['ndjson-text', ['-a']]] as const) {
    const out = fs.openSync('/dev/null', 'w');
    const run = startBin(tool, [...args, big], { stdio: ['ignore', out, 'pipe'] });
    fs.closeSync(out);
    t.ok(await waitFor(() => run.stderr().includes(':1: not JSON'), 10000), `${tool} is reading`);
    const t0 = Date.now();
    run.child.kill('SIGINT');
    const end = await run.exited;
    const ms = Date.now() - t0;
    t.same({ code: end.code, signal: end.signal }, { code: 130, signal: null }, `${tool}: SIGINT gives 130`);
    t.ok(ms < 1500, `ended ${ms} ms after the signal`);
    // The stop cuts the file mid-line, but for a stop that falls between two lines: that line is interrupted, not truncated.
    t.match(run.stderr(), new RegExp(`^${tool}: \\S+:1: not JSON: Update available: 9\\.9\\.9\\n(?:${tool}: \\S+:\\d+: interrupted: [^\\n]*\\n)?$`), `${tool}: nothing else, or the line the stop cut, as interrupted`);
  }
});
