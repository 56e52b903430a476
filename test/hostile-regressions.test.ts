// What the hostile-input suite found, one case each, kept as plain tests so each fix
// stays fixed whatever the fuzzer's seeds.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT, memoryIo, runBin } from './fixtures/lib/run.js';
import { main as resultMain } from '../src/cli/result.js';
import { main as dedupeMain } from '../src/cli/dedupe.js';
import { main as textMain } from '../src/cli/text.js';
import { main as toolsMain } from '../src/cli/tools.js';
import { EventReader } from '../src/io/input.js';
import { MAX_DEPTH, nestedTooDeep, parseNested } from '../src/io/json-bytes.js';
import { canonicalJsonText, decimalText, exactJsonText, jsonText, maySpellNumbers, numberId, writtenJsonText, writtenNumbers, writtenPlaces } from '../src/json-text.js';
import { runInProcess } from './fixtures/hostile/check.js';
import { tools } from '../src/index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-regressions-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));

const stream = (name: string): Buffer => fs.readFileSync(path.join(ROOT, 'test/fixtures/streams', name));

/** The stream up to the end of its line `n` (1-based), then that line's next `cut` bytes: the agent died mid-write. */
function diedInLine(data: Buffer, n: number, cut: (line: string) => number): Buffer {
  let start = 0;
  for (let i = 1; i < n; i++) start = data.indexOf(10, start) + 1;
  const line = data.toString('utf8', start, data.indexOf(10, start));
  return data.subarray(0, start + Buffer.byteLength(line.slice(0, cut(line))));
}

t.test('a last line cut just after a closing brace is truncated, even of a type the tool skims', async (t) => {
  const partial = stream('dedupe-partial.ndjson');
  // The prompt line, cut after its content array's `}`: it starts like an event and ends with `}`.
  const user = diedInLine(partial, 2, (l) => l.indexOf('}]}') + 1);
  let m = memoryIo(user);
  t.equal(await dedupeMain([], m.io), 0);
  t.notMatch(m.stdout(), '"type":"user"', 'ndjson-dedupe does not pass the torn line on');
  t.match(m.stderr(), /^ndjson-dedupe: stdin:2: truncated: \{"type":"user"/m);
  for (const line of m.stdout().split('\n').filter(Boolean)) JSON.parse(line);
  // A tool call cut after its args: ndjson-text must not take it for a call that ended the message.
  const call = diedInLine(partial, 7, (l) => l.indexOf('}}}') + 3);
  m = memoryIo(call);
  t.equal(await textMain([], m.io), 4);
  t.equal(m.stdout(), "I'll read package.json first.\n", 'the text there was');
  t.match(m.stderr(), /^ndjson-text: stdin:7: truncated: /m);
  m = memoryIo(call);
  t.equal(await toolsMain(['--no-pending'], m.io), 3, 'the torn line is no call started, and a call the audit cannot read fails the check');
  t.equal(m.stdout(), '');
  t.match(m.stderr(), /^ndjson-tools: stdin:7: a tool call the audit cannot read \(truncated\): the checks cannot pass$/m);
  m = memoryIo(call);
  t.equal(await toolsMain([], m.io), 0, 'no check asked for: no failure');
});

t.test('values nested 100,000 deep: read, keyed, printed and audited, never a stack overflow', async (t) => {
  const n = 100000;
  const deep = '['.repeat(n) + ']'.repeat(n);
  const init = '{"type":"system","subtype":"init","session_id":"s","cwd":"/p"}';
  // Over two lines (the slow path) and on one line.
  const reader = { records: 0, problems: [] as string[] };
  const r = new EventReader({ record: () => reader.records++, problem: (p) => reader.problems.push(p.reason) });
  r.startSource('in');
  r.write(Buffer.from(`{"type":"assistant",\n"deep":${deep}}\n{"type":"x","deep":${deep}}{"type":"y"}\n`));
  r.endSource();
  t.same(reader, { records: 3, problems: [] }, 'pretty-printed and glued deep values are events');

  const result = `{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s","deep":${deep}}`;
  const file = path.join(dir, 'deep.ndjson');
  fs.writeFileSync(file, `${init}\n${result}\n`);
  for (const args of [['--field', 'deep', '--field', 'result'], ['--all', '--tsv', '--field', 'deep']]) {
    for (const from of ['stdin', 'file']) {
      const m = memoryIo(`${init}\n${result}\n`);
      // A file after --field would be taken for a second field: it goes first.
      t.equal(await resultMain(from === 'file' ? [file, ...args] : args, m.io), 0, `ndjson-result ${args.join(' ')} (${from})`);
      t.equal(m.stdout().split('\n')[0], deep, 'the field is printed as JSON');
      t.equal(m.stderr(), '');
    }
  }

  const assistant = (text: string) => `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"${text}"}]},"session_id":"s","deep":${deep}}`;
  let m = memoryIo(`${assistant('a')}\n${assistant('b')}\n`);
  t.equal(await dedupeMain(['--key', 'deep'], m.io), 0);
  t.equal(m.stdout(), `${assistant('a')}\n`, 'ndjson-dedupe --key: the second event has the same deep key');
  t.equal(m.stderr(), '');

  const call = (sub: string) => `{"type":"tool_call","subtype":"${sub}","call_id":"c","session_id":"s","tool_call":{"readToolCall":{"args":{"path":"a","deep":${deep}}${sub === 'completed' ? ',"result":{"success":{}}' : ''}}}}`;
  for (const input of [`${init}\n${call('started')}\n${call('completed')}\n`, `${init}\n${call('started')}\n`]) {
    m = memoryIo(input);
    t.equal(await toolsMain(['--full'], m.io), 0, 'ndjson-tools --full');
    const rec = JSON.parse(m.stdout()) as { args: { deep: unknown } };
    t.ok(Array.isArray(rec.args.deep), 'the record holds the deep args');
    t.equal(m.stderr(), '');
  }
});

t.test('jsonText writes what JSON.stringify writes, at any depth', async (t) => {
  const values: unknown[] = [null, true, 0, -1.5e-300, 'a"\\\u2028\ud800', [], {}, { b: [1, { a: 'x' }], a: null, __proto__x: 1 }, [[[]], {}]];
  for (const v of values) {
    t.equal(jsonText(v), JSON.stringify(v));
    // Inside 50,000 arrays, only the explicit stack can write it.
    const n = 50000;
    let wrapped: unknown = v;
    for (let i = 0; i < n; i++) wrapped = [wrapped];
    t.equal(jsonText(wrapped), '['.repeat(n) + JSON.stringify(v) + ']'.repeat(n));
  }
  t.equal(canonicalJsonText({ b: 1, a: { d: [2, { z: 0, y: 1 }], c: 3 } }), '{"a":{"c":3,"d":[2,{"y":1,"z":0}]},"b":1}');
  let deepObject: unknown = { z: 1, a: 2 };
  for (let i = 0; i < 50000; i++) deepObject = { k: deepObject, b: i };
  const text = canonicalJsonText(deepObject);
  t.ok(text.startsWith('{"b":49999,"k":{"b":49998,"k":'), 'keys sorted at every depth');
  t.ok(text.includes('{"a":2,"z":1}'));
  let deepInfinity: unknown = [Infinity, -Infinity, null];
  for (let i = 0; i < 50000; i++) deepInfinity = [deepInfinity];
  t.ok(canonicalJsonText(deepInfinity).includes('[1e999,-1e999,null]'), 'Infinity is no null, past the recursion too');
  // exactJsonText: keys in their order, Infinity as JSON.parse reads it back.
  for (const v of values) t.equal(exactJsonText(v), JSON.stringify(v), 'as JSON.stringify, without Infinity');
  t.equal(exactJsonText(JSON.parse('{"b":1e400,"a":[-1e400,{"z":1e500}]}')), '{"b":1e999,"a":[-1e999,{"z":1e999}]}');
  t.ok(exactJsonText(deepInfinity).includes('[1e999,-1e999,null]'), 'past the recursion too');
});

t.test('a number too large for a double is no null in what the tools write of a value', async (t) => {
  const line = '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s","n":1e400,"u":{"big":-1e400}}\n';
  const fields = memoryIo(line);
  t.equal(await resultMain(['-f', 'n', '-f', 'u'], fields.io), 0);
  t.equal(fields.stdout(), '1e400\n{"big":-1e400}\n', 'ndjson-result --field, as written');
  // A value over several lines is written again as one, its numbers as they were written.
  const pretty = memoryIo('{"type":"result",\n"result":"ok","n":1e400}\n');
  await dedupeMain([], pretty.io);
  t.equal(pretty.stdout(), '{"type":"result","result":"ok","n":1e400}\n', 'ndjson-dedupe of a pretty-printed event');
});

t.test('a value of an event read again is found by its place, not by what it holds', async (t) => {
  const text = '{"a":[{"n":1.0},{"n":1}],"b":{"n":12345678901234567891},"c":{"n":12345678901234567890}}';
  const event = JSON.parse(text) as { a: unknown[]; b: unknown; c: unknown };
  let reads = 0;
  const of = writtenPlaces(event, () => (reads++, writtenNumbers(text)));
  t.same(of(event.a[1]), { n: '1' }, 'the second of two alike, not the first');
  t.same(of(event.a[0]), { n: '1.0' });
  t.same(of(event.c), { n: '12345678901234567890' }, 'one double, two numbers: the one at its place');
  t.same(of(event), writtenNumbers(text), 'the event itself');
  t.equal(of({ n: 1 }), undefined, 'a value of no place in it: none');
  t.equal(of(1), undefined, 'nor a number');
  t.equal(reads, 1, 'the event read again once');
  // Many values of one event: each found at once (a message of 20,000 calls, a sub-agent's 20,000 steps).
  const many = { content: Array.from({ length: 20000 }, (_, i) => ({ input: { pid: i } })) };
  const manyOf = writtenPlaces(many, () => writtenNumbers(JSON.stringify(many)));
  for (let i = 0; i < many.content.length; i++) if ((manyOf(many.content[i]!.input) as { pid: string }).pid !== String(i)) t.fail(`value ${i}`);
  // Nested past the recursion: found all the same.
  let deep: unknown = { n: 1.5 };
  for (let i = 0; i < 100000; i++) deep = [deep];
  let inner = deep;
  while (Array.isArray(inner)) inner = inner[0];
  const deepText = exactJsonText(deep);
  t.same(writtenPlaces(deep, () => writtenNumbers(deepText.replace('1.5', '1.50')))(inner), { n: '1.50' });
});

t.test('numbers as ids: as JavaScript writes them, with every digit the stream gave', async (t) => {
  for (const [text, id] of [
    ['12345678901234567890', '12345678901234567890'],
    ['12345678901234567891', '12345678901234567891'],
    ['1.2345678901234567891e19', '12345678901234567891'],
    ['1e30', '1e+30'],
    ['1000000000000000000000000000000', '1e+30'],
    ['1.50', '1.5'],
    ['0.10', '0.1'],
    ['0.1000000000000000055511151231257827', '0.1000000000000000055511151231257827'],
    ['9007199254740992.0', '9007199254740992'],
    ['-12345678901234567890', '-12345678901234567890'],
    ['0.0000001500', '1.5e-7'],
    ['0.000001', '0.000001'],
    ['123456789012345678901234', '1.23456789012345678901234e+23'],
    ['-0.0', '0'],
  ]) {
    t.equal(numberId(Number(text), text), id, text);
    t.equal(decimalText(String(Number(text))), String(Number(text)), `${text}: JavaScript's own text unchanged`);
  }
  t.equal(decimalText('1.5x'), undefined);
  // Text whose numbers JSON.stringify writes as they are written need not be read again.
  for (const text of ['{"a":1.50}', '{"a":[1,-0]}', '{"a": 1e2}', '{"a":\n 12345678901234567}', '{"a":[0,1E5]}', '{"a":-0.0}', '{"a":1000000000000000000000}'])
    t.ok(maySpellNumbers(text) && maySpellNumbers(Buffer.from(text)), text);
  for (const text of ['{"a":1,"b":[-1,0,-20],"c":123456789012345}', '{"a":"1.5"}', '{"a":"x","b":-7}'])
    t.notOk(maySpellNumbers(text), text);
  t.equal(numberId(1.5, '2'), '1.5', 'a text of another number: the number');
  t.equal(numberId(7, '7.0'), '7', 'a safe integer: the number');
  t.equal(numberId(1, '1.00000000000000000001'), '1.00000000000000000001', 'a decimal a double rounds to an integer: the decimal');
  t.equal(numberId(0, '1e-400'), '1e-400');
  t.equal(numberId(-0, '-1e-400'), '-1e-400');
});

t.test('a value written again keeps its numbers as written, and only where they read as the value parsed', async (t) => {
  const again = (text: string): string => writtenJsonText(JSON.parse(text), writtenNumbers(text));
  const text = '{"a":1.50,"b":[-0,12345678901234567890,1e400,-1E-400,"1.50"],"c":{"d":2.0e0,"e":null,"f":true}}';
  t.equal(again(text), text, 'every number as written, at any depth');
  t.equal(again('{ "a" : 1.50 ,\n "b" : [ 1.0 ] }'), '{"a":1.50,"b":[1.0]}', 'spaces left out');
  t.equal(again('{"a":1.0,"a":2.50}'), '{"a":2.50}', 'a key given twice: the last, as JSON.parse keeps it');
  t.equal(again('{"__proto__":1.50,"x":{"__proto__":[2.0]}}'), '{"__proto__":1.50,"x":{"__proto__":[2.0]}}', 'a member named __proto__, as any other');
  t.equal(writtenJsonText(1.5, '2'), '1.5', 'a spelling of another number is not taken');
  t.equal(writtenJsonText(0, '-0'), '0', 'nor -0 for 0');
  t.equal(writtenJsonText([1.5, 2], ['1.50']), '[1.50,2]', 'a number with no spelling at its place: as parsed');
  t.equal(writtenJsonText({ a: 1.5 }, ['1.50']), '{"a":1.5}', 'nor from a value of another shape');
  t.equal(writtenJsonText(Infinity, undefined), '1e999', 'none at all: as exactJsonText writes it');
  t.same(writtenNumbers('{"a\\"1":[1.50,"2.0\\\\",-0,{"b":1e400}],"c":"x\\"y"}'), { 'a"1': ['1.50', '2.0\\', '-0', { b: '1e400' }], c: 'x"y' }, 'numbers as their text; strings and their escapes as they are');
  t.equal(writtenNumbers('{"a":'), undefined, 'a text cut short is no value');
  t.equal(writtenNumbers('{"a":"b}'), undefined, 'nor one with a string not closed');
  t.equal(writtenNumbers('{"a":1}x'), undefined, 'nor one with more after it');
  let deep = '[1.50]';
  for (let i = 0; i < 50000; i++) deep = `[${deep}]`;
  const written = writtenJsonText(JSON.parse(deep), writtenNumbers(deep));
  t.equal(written.length, deep.length - 1, 'nested past the recursion: written whole');
  t.ok(written.includes('[1.5]'), 'as exactJsonText writes it');
});

t.test('a value read over several lines is written as one line, its numbers and members as read', async (t) => {
  const m = memoryIo('{\n  "type": "x",\n  "big": 12345678901234567890123, "f": 1.50, "z": -0, "e": 2E+3,\n  "s": "a\\u00e9\\n",\n  "k": [ ],\n  "o": { "a": [1, {"b": null}], "t": true, "f": false }\n}\n');
  t.equal(await dedupeMain([], m.io), 0);
  t.equal(m.stdout(), '{"type":"x","big":12345678901234567890123,"f":1.50,"z":-0,"e":2E+3,"s":"aé\\n","k":[],"o":{"a":[1,{"b":null}],"t":true,"f":false}}\n');
  // Glued on one line, each value on a line of its own, as read.
  const glued = memoryIo('{"type":"x","n":1.0}{"type":"y","n":[10.50]}\n');
  t.equal(await dedupeMain([], glued.io), 0);
  t.equal(glued.stdout(), '{"type":"x","n":1.0}\n{"type":"y","n":[10.50]}\n');
});

t.test('ndjson-dedupe drops a line it found not to be JSON, as it drops every line that is no event', async (t) => {
  // Starts like a tool_call event and ends with `}`, so it is handed over unparsed; its session
  // is not at its end, so ndjson-dedupe parses it, and finds it broken.
  const broken = '{"type":"tool_call","session_id":"s","tool_call":{"readToolCall":{"args":{"path#:"a"}}}}';
  const before = '{"type":"system","subtype":"init","session_id":"s"}';
  const after = '{"type":"result","subtype":"success","is_error":false,"result":"","session_id":"s"}';
  const m = memoryIo(`${before}\n${broken}\n${after}\n`);
  t.equal(await dedupeMain(['--stats'], m.io), 0);
  t.equal(m.stdout(), `${before}\n${after}\n`, 'jq can read the output');
  t.match(m.stderr(), /^ndjson-dedupe: stdin:2: not JSON: /m);
  t.match(m.stderr(), /^ {2}total +2 +2 +0$/m, 'two events read, two kept');
  t.match(m.stderr(), /^ {2}not events +1 +0 +1$/m, 'one line that is no event, dropped');
});

t.test('ndjson-result --json on a terminal: no C1 control, DEL or line separator left raw', async (t) => {
  // Valid JSON may hold these raw inside strings; on a terminal U+009B is a CSI.
  const result = '{"type":"result","subtype":"success","is_error":false,"result":"a\u009b2J\u009d0;x\u009c\u007f\u2028\u2029b \\u001b","session_id":"s"}';
  for (const args of [['--json'], ['--json', '--all']]) {
    const tty = await runInProcess({ tool: 'ndjson-result', args, tty: true }, [Buffer.from(`${result}\n`)]);
    t.equal(tty.code, 0);
    const out = tty.stdout.toString('utf8');
    t.notMatch(out, /[\u007f-\u009f\u2028\u2029]/, `${args.join(' ')}: nothing raw on a terminal`);
    t.same(JSON.parse(out), JSON.parse(result), 'the same JSON value, escaped');
    const piped = await runInProcess({ tool: 'ndjson-result', args }, [Buffer.from(`${result}\n`)]);
    t.equal(piped.stdout.toString('utf8'), `${result}\n`, 'to a pipe: the line as read');
  }
});

t.test('standard input a directory: one clear line, status 2', async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-dedupe', 'ndjson-text', 'ndjson-tools']) {
    const fd = fs.openSync(dir, 'r');
    const ran = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'bin', `${tool}.js`)], { stdio: [fd, 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    fs.closeSync(fd);
    t.equal(ran.stderr, `${tool}: stdin: Is a directory\n`, tool);
    t.equal(ran.code, 2);
    t.equal(ran.stdout, '');
  }
});

t.test('a file name with control characters is shown escaped in every warning', async (t) => {
  const name = path.join(dir, 'run\x1b]52;c;eA==\x07\r\n\u009b2J.ndjson');
  fs.writeFileSync(name, 'Update available\n{"type":"result","subtype":"success","is_error":false,"result":"ok"}\n');
  const missing = `${name}.gone`;
  for (const [tool, main] of [['ndjson-result', resultMain], ['ndjson-dedupe', dedupeMain], ['ndjson-text', textMain], ['ndjson-tools', toolsMain]] as const) {
    const m = memoryIo('');
    t.equal(await main([name, missing], m.io), 2, tool);
    const lines = m.stderr().split('\n').slice(0, -1);
    t.ok(lines.some((l) => l.includes('run\\x1b]52;c;eA==\\x07\\r\\n\\x9b2J.ndjson:1: not JSON: Update available')), `${tool}: the bad line, at the escaped name`);
    t.ok(lines.some((l) => l.endsWith('.ndjson.gone: No such file or directory')), `${tool}: the missing file`);
    t.notMatch(m.stderr(), /[\x00-\x09\x0b-\x1f\x7f-\x9f]/, `${tool}: nothing raw on stderr`);
  }
});

t.test('ndjson-result, from its end or from its start, sees a result glued after another event', async (t) => {
  const s = 'session_id":"s"';
  const input = [
    `{"type":"system","subtype":"init","${s}}`,
    `{"type":"user","message":{"role":"user","content":[]},"${s}}{"type":"result","subtype":"success","is_error":false,"result":"glued","${s}}`,
    // After the result, an event of the session that is not the agent at work (a message would be a run of its own).
    `{"type":"stats","tokens":3,"${s}}`,
  ].join('\n') + '\n';
  const file = path.join(dir, 'glued.ndjson');
  fs.writeFileSync(file, input);
  // JSON's spaces between the values: any run of spaces, tabs and carriage returns.
  for (const glue of ['}{', '} {', '}  {', '}\t{', '} \t {', '}\r{']) {
    fs.writeFileSync(file, input.replace('}{', glue));
    const fromFile = memoryIo('');
    const fromStdin = memoryIo(input.replace('}{', glue));
    const all = memoryIo('');
    t.equal(await resultMain([file], fromFile.io), 0, `glued with ${JSON.stringify(glue)}: the result is found in the file`);
    t.equal(await resultMain([], fromStdin.io), 0, 'and on standard input');
    t.equal(await resultMain(['--all', file], all.io), 0, 'and with --all, which reads from the start');
    t.equal(fromFile.stdout(), 'glued\n');
    t.equal(fromStdin.stdout(), 'glued\n');
    t.equal(all.stdout(), 'glued\n');
  }
});

t.test('ndjson-result --json on a terminal: no carriage return or tab between tokens either', async (t) => {
  // JSON allows them as white space between tokens; on a terminal a CR sends the cursor back over the line.
  const result = '{"type":"result",\r"subtype":"success",\t"is_error":false,"result":"ok","session_id":"s"}\r';
  const tty = await runInProcess({ tool: 'ndjson-result', args: ['--json'], tty: true }, [Buffer.from(`${result}\r\n`)]);
  const out = tty.stdout.toString('utf8');
  t.notMatch(out, /[\r\t]/, 'nothing raw on a terminal');
  t.same(JSON.parse(out), JSON.parse(result), 'the same JSON value');
  const piped = await runInProcess({ tool: 'ndjson-result', args: ['--json'] }, [Buffer.from(`${result}\r\n`)]);
  t.equal(piped.stdout.toString('utf8'), `${result}\n`, 'to a pipe: the line as read');
});

t.test('a check given a glob too long or too large to read: a usage error, never a stack trace or a failed run', async (t) => {
  const input = fs.readFileSync(path.join(ROOT, 'test/fixtures/streams/basic.ndjson'), 'utf8');
  for (const [what, glob, reason] of [
    ['a glob over 64 KiB', 'a'.repeat(65537), 'pattern is too long'],
    // What V8 says of it depends on the stack left when it compiles it.
    ['a glob whose expression is too large', '*a'.repeat(8000), '(?:regular expression too large|stack overflow)'],
  ] as const) {
    for (const flag of ['--deny-read', '--deny-write', '--require-write']) {
      const m = memoryIo(input);
      t.equal(await toolsMain([flag, glob], m.io), 1, `${flag}, ${what}: status 1`);
      // Compared clipped: a glob in a failure's diff would be 64 KiB of it.
      const shown = glob.slice(0, 60);
      t.match(m.stderr().slice(0, 300), new RegExp(`^ndjson-tools: ${flag}: the glob cannot be read \\(${reason}\\): '${escaped(shown)}…'\nTry 'ndjson-tools --help' for more information\\.\n$`), `${flag}, ${what}: one line, the reason`);
      t.equal(m.stdout().length, 0, `${flag}, ${what}: nothing on stdout`);
    }
    t.throws(() => tools({ denyWrite: [glob] }), { name: 'TypeError', message: new RegExp(`^option denyWrite: the glob cannot be read \\(${reason}\\): '${escaped(glob.slice(0, 60))}…'$`) }, `${what}: a TypeError in the library`);
  }
  // Braces of more alternatives than the checks try (a glob of the log's is bounded so too): at once, not after minutes.
  const braces = '{a,b}'.repeat(25);
  const m = memoryIo(input);
  t.equal(await toolsMain(['--deny-read', braces], m.io), 1, 'braces of 33 million alternatives: status 1');
  t.equal(m.stderr(), `ndjson-tools: --deny-read: the glob has more alternatives than the checks try (1000): '${braces.slice(0, 60)}…'\nTry 'ndjson-tools --help' for more information.\n`);
  const most = memoryIo(input);
  t.equal(await toolsMain(['--deny-read', `{${Array.from({ length: 1000 }, (_, i) => i).join(',')}}`], most.io), 0, '1,000 alternatives: read');
});

/** `s` as a regular expression that matches it alone. */
function escaped(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

t.test("a grep's glob too long or too deeply nested to read as a pattern: the calls after it are still read, and --deny-read fails it", async (t) => {
  const S = 's';
  const lines = (glob: string) =>
    [
      { type: 'system', subtype: 'init', cwd: '/r', session_id: S },
      { type: 'tool_call', subtype: 'completed', call_id: 'c1', tool_call: { grepToolCall: { args: { pattern: 'TODO', path: 'src', glob }, result: { success: {} } } }, session_id: S },
      { type: 'tool_call', subtype: 'completed', call_id: 'c2', tool_call: { readToolCall: { args: { path: '.env' }, result: { success: {} } } }, session_id: S },
      { type: 'result', subtype: 'success', is_error: false, result: 'done', session_id: S },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n') + '\n';
  const globs: Array<[string, string]> = [
    ['a pattern of 16,000 characters whose expression is too large', '*a'.repeat(8000)],
    ['a pattern over 64 KiB', `*${'a'.repeat(70000)}`],
    ['braces nested 20,000 deep', `${'{'.repeat(20000)}x,y0${Array.from({ length: 20000 }, (_, i) => `},y${i + 1}`).join('')}`],
  ];
  for (const [what, glob] of globs) {
    const input = lines(glob);
    let m = memoryIo(input);
    t.equal(await toolsMain(['--deny-read', '**/.env'], m.io), 3, `${what}: --deny-read fails`);
    t.same(
      m.stderr().split('\n'),
      [
        "ndjson-tools: stdin:2: --deny-read '**/.env': grep, whose glob is too long or too deeply nested for the audit to read (call c1, success)",
        "ndjson-tools: stdin:3: --deny-read '**/.env': read .env (call c2, success)",
        '',
      ],
      `${what}: the grep, and the read after it`,
    );
    m = memoryIo(input);
    t.equal(await toolsMain([], m.io), 0, `${what}: audited`);
    t.equal(m.stdout().trim().split('\n').length, 2, `${what}: both calls audited`);
    m = memoryIo(input);
    t.equal(await textMain(['-a'], m.io), 0, `${what}: ndjson-text -a reads on`);
    t.match(m.stdout(), /→ grep TODO\n→ read \.env\n/, `${what}: both tool lines`);
  }
});

t.test('values nested deeper than MAX_DEPTH: reported, never built (a line of 64 MiB of `[` took more than the heap)', async (t) => {
  t.equal(nestedTooDeep(Buffer.from('[]')), false);
  const open = (k: number) => '['.repeat(k);
  const closed = (k: number) => open(k) + ']'.repeat(k);
  // The object is one level: the array inside it, MAX_DEPTH - 1 more.
  const atMost = `{"type":"x","deep":${closed(MAX_DEPTH - 1)}}`;
  const over = `{"type":"x","deep":${closed(MAX_DEPTH)}}`;
  t.equal(nestedTooDeep(Buffer.from(atMost)), false, 'MAX_DEPTH levels are read');
  t.equal(nestedTooDeep(Buffer.from(over)), true, 'one more is too deep');
  t.equal(nestedTooDeep(Buffer.from(`{"s":"${open(MAX_DEPTH + 5)}"}`)), false, 'brackets in a string do not nest');
  t.equal(nestedTooDeep(Buffer.from(`{"s":"\\"${open(MAX_DEPTH + 5)}\\\\"}`)), false, 'nor after an escaped quote');
  t.equal(nestedTooDeep(Buffer.from(`{"s":"\\\\",${open(MAX_DEPTH + 5)}`)), true, 'a backslash escaped ends no string');
  t.equal(nestedTooDeep(Buffer.from(`${open(MAX_DEPTH + 5)}"}`), 0, true), false, 'a line that starts inside a string');
  t.equal(nestedTooDeep(Buffer.from(open(10)), MAX_DEPTH - 5), true, 'counted from the depth the line starts at');
  t.throws(() => parseNested(`{"a":${open(MAX_DEPTH + 1)}`), SyntaxError);
  t.same(parseNested('{"a":[[1]]}'), { a: [[1]] });

  const result = '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s"}';
  const cases: [string, string, [number, string][], number[]][] = [
    ['read at MAX_DEPTH', `${atMost}\n${result}\n`, [], [1, 2]],
    ['one line', `${over}\n${result}\n`, [[1, 'nested too deep']], [2]],
    ['cut short', `{"type":"x","deep":${open(MAX_DEPTH + 3)}\n${result}\n`, [[1, 'nested too deep']], [2]],
    ['glued', `${over}${result}\n${result}\n`, [[1, 'nested too deep']], [2]],
    ['over two lines', `{"type":"x",\n"deep":${closed(MAX_DEPTH)}}\n${result}\n`, [[1, 'nested too deep'], [2, 'nested too deep']], [3]],
    ['brackets in a string over two lines', `{"type":"x","s":"a\n${open(MAX_DEPTH + 3)}"}\n${result}\n`, [], [1, 3]],
    ['an array element', `[{"type":"a"},${over},${result}]\n${result}\n`, [[1, 'nested too deep']], [1, 2]],
  ];
  for (const [label, text, problems, lines] of cases) {
    for (const size of [0, 65536, 1000]) {
      const r = new EventReader({ record: (rec) => got.lines.push(rec.line), problem: (p) => got.problems.push([p.line, p.reason]) });
      const got = { lines: [] as number[], problems: [] as [number, string][] };
      r.startSource('in');
      const bytes = Buffer.from(text);
      if (size === 0) r.write(bytes);
      else for (let i = 0; i < bytes.length; i += size) r.write(bytes.subarray(i, i + size));
      r.endSource();
      t.same(got, { lines, problems }, `${label}, in reads of ${size || 'all'} bytes`);
    }
  }

  // A key over two lines: the tokens tell no key's start, its bytes do, and the brackets after it are in a string.
  for (const size of [0, 4096]) {
    const got = { lines: [] as number[], problems: [] as string[] };
    const r = new EventReader({ record: (rec) => got.lines.push(rec.line), problem: (p) => got.problems.push(p.reason) });
    r.startSource('in');
    const bytes = Buffer.from(`{"type":"x","no\nte":"${open(MAX_DEPTH + 3)}"}\n${result}\n`);
    if (size === 0) r.write(bytes);
    else for (let i = 0; i < bytes.length; i += size) r.write(bytes.subarray(i, i + size));
    r.endSource();
    t.same(got.lines, [1, 3], `a key over two lines, in reads of ${size || 'all'} bytes`);
    t.same(got.problems, [], 'nothing reported');
  }

  // Each tool, on a line of a type it reads and on one it lets by, then the run's result.
  const init = '{"type":"system","subtype":"init","session_id":"s","cwd":"/p"}';
  const deepCall = `{"type":"tool_call","subtype":"started","call_id":"c1","session_id":"s","tool_call":{"writeToolCall":{"args":{"path":"a","x":${open(MAX_DEPTH + 1)}`;
  const input = `${init}\n${deepCall}\n${result}\n`;
  for (const [name, main, args, code, out] of [
    ['ndjson-result', resultMain, [], 0, 'ok\n'],
    ['ndjson-text', textMain, [], 0, 'ok\n'],
    ['ndjson-dedupe', dedupeMain, [], 0, `${init}\n${result}\n`],
    ['ndjson-tools', toolsMain, ['--no-writes'], 3, ''],
  ] as const) {
    const m = memoryIo(input);
    t.equal(await main([...args], m.io), code, name);
    t.equal(m.stdout(), out, `${name}: what it read`);
    t.match(m.stderr(), new RegExp(`^${name}: stdin:2: nested too deep: \\{"type":"tool_call"`, 'm'), `${name}: the line reported`);
  }
  // The built binary, as a user runs it.
  const ran = await runBin('ndjson-text', [], input);
  t.same([ran.code, ran.stdout], [0, 'ok\n']);
  t.match(ran.stderr, /^ndjson-text: stdin:2: nested too deep: \{"type":"tool_call"/);
  // A function call's arguments, JSON text nested too deep: not JSON to the audit, whose checks then cannot pass.
  const args = `{\\"path\\":\\"a\\",\\"x\\":${closed(MAX_DEPTH + 1)}}`;
  const call = `{"type":"tool_call","subtype":"started","call_id":"c1","session_id":"s","tool_call":{"function":{"name":"write_file","arguments":"${args}"}}}`;
  const m = memoryIo(`${init}\n${call}\n${result}\n`);
  t.equal(await toolsMain(['--no-writes'], m.io), 3);
  t.match(m.stdout(), '"args_error":"not JSON"');
  // ndjson-result on a file, read from its end: a last line too deep is the full read's to report.
  const file = path.join(dir, 'deep-last.ndjson');
  fs.writeFileSync(file, `${init}\n${result.slice(0, -1)},"x":${closed(MAX_DEPTH)}}\n`);
  const r = memoryIo();
  t.equal(await resultMain([file], r.io), 4);
  t.match(r.stderr(), /deep-last\.ndjson:2: nested too deep: \{"type":"result"/);
});
