// ndjson-result reads a regular file from its end; a pipe from its start.
// Both must give the same answer: same stdout and status, and the same
// messages, except warnings about lines the reading from the end never reached.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT, TEST_ENV } from './fixtures/lib/run.js';
import { verdictFromEnd } from '../src/result/seek.js';

const bin = path.join(ROOT, 'bin/ndjson-result.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-result-seek-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));

const init = (s: string) => JSON.stringify({ type: 'system', subtype: 'init', session_id: s, cwd: '/p' });
const delta = (s: string, text: string) =>
  JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text }] }, session_id: s, timestamp_ms: 1 });
const result = (s: string | undefined, text: string, extra: object = {}) =>
  JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: text, ...(s === undefined ? {} : { session_id: s }), ...extra });

const stats = (s: string) => JSON.stringify({ type: 'stats', tokens: 1, session_id: s });
const status = (s: string) => JSON.stringify({ type: 'system', subtype: 'status', session_id: s });

const built: Record<string, string> = {
  // The agent at work after its session's result, with no init: a run of its own, without a result.
  'text after the result': [init('a'), result('a', 'r'), delta('a', 'more')].join('\n') + '\n',
  'text after the result, another session between': [init('a'), result('a', 'r'), init('b'), delta('a', 'more'), result('b', 'r2')].join('\n') + '\n',
  'text of another session after the result': [init('a'), init('b'), result('a', 'r'), delta('b', 'more'), stats('a')].join('\n') + '\n',
  'resumed session without result': [init('a'), result('a', 'first'), init('a'), delta('a', 'again')].join('\n') + '\n',
  'interleaved sessions': [init('a'), init('b'), delta('a', 'x'), result('b', 'bee'), delta('a', 'y'), result('a', 'ay'), delta('b', 'z')].join('\n') + '\n',
  'last event without session': [init('a'), result('a', 'r'), '{"type":"assistant","message":{"content":[]}}'].join('\n') + '\n',
  'result without session at the end': [init('a'), delta('a', 'x'), result(undefined, 'orphan')].join('\n') + '\n',
  'no newline at the end': [init('a'), result('a', 'r')].join('\n'),
  'truncated last line': [init('a'), result('a', 'r'), '{"type":"result","subtype":"succ'].join('\n'),
  'noise at the end': [init('a'), result('a', 'r'), 'Update available'].join('\n') + '\n',
  'noise in the middle': [init('a'), 'Update available', result('a', 'r')].join('\n') + '\n',
  'failed result among others': [init('a'), result('a', 'ok'), init('b'), result('b', 'bad', { is_error: true, subtype: 'failed' })].join('\n') + '\n',
  'pretty result at the end': `${init('a')}\n{\n  "type": "result",\n  "result": "p",\n  "session_id": "a"\n}\n`,
  'glued at the end': `${init('a')}\n${delta('a', 'x')}${result('a', 'g')}\n`,
  // Claude Code's --output-format json --verbose: the run's events as one array.
  'an array of events at the end': `${init('z')}\n${result('z', 'before')}\n[${init('a')},${delta('a', 'x')},${result('a', 'in the array')}]\n`,
  'crlf': [init('a'), result('a', 'r')].join('\r\n') + '\r\n',
  'blank lines at the end': [init('a'), result('a', 'r')].join('\n') + '\n\n  \n',
  'session id with an escape': [init('a"b'), result('a"b', 'q')].join('\n') + '\n',
  'other session after a result': [init('a'), result('a', 'r'), init('b'), result('b', 'r2'), delta('a', 'late')].join('\n') + '\n',
  // JSON.parse keeps the last of keys that repeat: these lines are results, whatever their first key says. (After them,
  // an event of the session that is not the agent at work: a delta would be a run of its own.)
  'a later type key': [init('a'), '{"type":"assistant","session_id":"a","type":"result","subtype":"success","is_error":false,"result":"found"}', stats('a')].join('\n') + '\n',
  // Lines longer than a read from the end (64 KiB, then twice as much up to 1 MiB): the result, and a session without one.
  'long lines across the reads from the end': [init('a'), delta('a', 'x'.repeat(300_000)), result('a', 'y'.repeat(150_000)), init('b'), delta('b', 'z'.repeat(70_000))].join('\n') + '\n',
  'a session without result starting 3 MiB back': [init('a'), result('a', 'r'), init('b'), ...Array.from({ length: 48 }, (_, k) => delta('b', `${k} `.padEnd(65_536, 'w')))].join('\n') + '\n',
  // After the last result, a line cut short: the run goes on past that result. Its last member a nested `session_id`
  // (not its own), or of a type no agent writes: each is read, not passed by its first key.
  'cut after the result, a nested session last': [init('a'), result('a', 'r'), '{"type":"result","subtype":"success","x":{"session_id":"b"}', status('a')].join('\n') + '\n',
  'cut after the result, a type no agent writes': [init('a'), result('a', 'r'), '{"type":"status","x":{"a":1}', status('a')].join('\n') + '\n',
  'broken after the result': [init('a'), result('a', 'r'), '{"type":"system","subtype":"init","cwd":"/x"y","session_id":"b"}', status('a')].join('\n') + '\n',
  // An array of events written an element a line, never closed: the full read reads it as cut short, its run with no
  // result, whatever its last element is.
  'an array never closed, a result its last element': `[${init('a')},\n${result('a', 'r')}\n`,
  'an array never closed, a failed result its last element': `[${init('a')},\n${result('a', 'bad', { is_error: true, subtype: 'error_max_turns' })}\n`,
  'an array never closed, a line after the result': `[${init('a')},\n${result('a', 'r')},\n${status('a')}\n`,
  'an array never closed, an init its last element': `[${delta('z', 'x')},\n${init('a')}\n`,
  'an array opened on a line of its own, never closed': `${init('z')}\n[\n${init('a')},\n\n${result('a', 'r')}\r\n`,
  'an array never closed, its comma on a line of its own': `[${init('a')}\n,\n${result('a', 'r')}\n`,
  // The line before the answer longer than a read: only its end counts, white space and all.
  'an array never closed, a long element before the result': `[${init('a')},\n${delta('a', 'x'.repeat(300_000))},\n${result('a', 'r')}\n`,
  'an array never closed, its comma before a long run of spaces': `[${init('a')},${' '.repeat(200_000)}\n${result('a', 'r')}\n`,
  'a long line before the result': [init('a'), delta('a', 'x'.repeat(300_000)), result('a', 'r')].join('\n') + '\n',
  // Closed, it is read as its events, from the end as from the start.
  'an array written an element a line': `[${init('a')},\n${result('a', 'r')}\n]\n`,
  'a later type key spelled with an escape':
    [init('a'), '{"type":"thinking","session_id":"a","\\u0074ype":"result","subtype":"success","is_error":false,"result":"found"}', stats('a')].join('\n') + '\n',
};
const inputs: Array<[string, string]> = Object.entries(built).map(([name, text]) => {
  const file = path.join(dir, `${name.replace(/\W+/g, '-')}.ndjson`);
  fs.writeFileSync(file, text);
  return [name, file];
});
for (const entry of fs.readdirSync(path.join(ROOT, 'test/fixtures/streams'))) {
  if (entry.endsWith('.ndjson')) inputs.push([`streams/${entry}`, path.join(ROOT, 'test/fixtures/streams', entry)]);
}
const builtNames = new Set(Object.keys(built));

function run(shell: string): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', shell], { env: TEST_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ stdout, stderr, status }));
  });
}

for (const [name, file] of inputs) {
  t.test(name, async (t) => {
    for (const args of builtNames.has(name) ? ['', '--json -f subtype'] : ['']) {
      const [seek, pipe] = await Promise.all([run(`node "${bin}" ${args} < "${file}"`), run(`cat "${file}" | node "${bin}" ${args}`)]);
      const what = `(${args || 'no options'})`;
      t.equal(seek.stdout, pipe.stdout, `stdout agrees ${what}`);
      t.equal(seek.status, pipe.status, `status agrees ${what}`);
      const unread = (line: string) => /^ndjson-result: stdin:\d+: not JSON: /.test(line);
      const seekLines = seek.stderr.split('\n');
      t.same(seekLines.filter((l) => !unread(l)), pipe.stderr.split('\n').filter((l) => !unread(l)), `messages agree ${what}`);
      for (const line of seekLines.filter(unread)) t.ok(pipe.stderr.includes(line), `a warning it gives the full read gives too ${what}`);
    }
  });
}

t.test('a result behind another first key is read as JSON.parse reads it, from the end and from the start', async (t) => {
  for (const name of ['a later type key', 'a later type key spelled with an escape']) {
    const file = inputs.find(([n]) => n === name)![1];
    for (const [how, shell] of [
      ['from its end', `node "${bin}" < "${file}"`],
      ['from a pipe', `cat "${file}" | node "${bin}"`],
      ['with --all', `node "${bin}" --all "${file}"`],
    ]) {
      const ran = await run(shell!);
      t.equal(ran.stdout, 'found\n', `${name}, ${how}: its text`);
      t.equal(ran.status, 0, `${name}, ${how}: success`);
    }
  }
});

t.test('reading from the end finds the same, whatever the size of each read', async (t) => {
  // One read of the whole file is the reference; then reads of a few bytes, growing or not, cut every line somewhere.
  const sizes = [1, 2, 3, 5, 7, 16, 64, 100, 4096].flatMap((first) => [{ first, most: first }, { first, most: 4 * first }, { first, most: 1 << 20 }]);
  for (const [name, file] of inputs) {
    const size = fs.statSync(file).size;
    const fd = fs.openSync(file, 'r');
    try {
      const whole = await verdictFromEnd(fd, size, { first: Math.max(size, 1), most: Math.max(size, 1) });
      let same = 0;
      // Past 64 KiB, reads of a few bytes at a time only while they grow.
      for (const reads of size > 1 << 16 ? sizes.filter((r) => r.first >= 4096 || r.most === 1 << 20) : sizes) {
        const found = await verdictFromEnd(fd, size, reads);
        if (JSON.stringify(found) === JSON.stringify(whole)) same++;
        else t.same(found, whole, `${name}: reads of ${reads.first} bytes, then up to ${reads.most}`);
      }
      t.ok(same > 0, `${name}: ${same} ways of reading agree (${whole === null ? 'read from the start' : whole.kind})`);
    } finally {
      fs.closeSync(fd);
    }
  }
});

t.test('a line longer than a read is read backwards whole when it may be an event, and given up at when it cannot', async (t) => {
  const sizes = { first: 64, most: 1024 };
  const at = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const verdict = async (file: string) => {
    const fd = fs.openSync(file, 'r');
    try {
      return await verdictFromEnd(fd, fs.statSync(file).size, sizes);
    } finally {
      fs.closeSync(fd);
    }
  };
  // A line of 50 KB after the result, of its session: read whole, the result found behind it (the full read might not keep it).
  const long = JSON.stringify({ type: 'system', subtype: 'status', session_id: 'a', pad: 'x'.repeat(50000) });
  const found = await verdict(at('long-last-line.ndjson', `${init('a')}\n${result('a', 'found')}\n${long}\n`));
  t.same([found?.kind, found?.kind === 'result' ? found.event.result : undefined], ['result', 'found'], 'a long event: its result found from the end');
  // An array, last or not: no event, from the start.
  const array = `[${init('a')},${delta('a', 'x'.repeat(50000))},${result('a', 'in the array')}]`;
  t.equal(await verdict(at('array-last.json', `${init('z')}\n${result('z', 'z')}\n${array}\n\n`)), null, 'an array last: from the start');
  t.equal(await verdict(at('array-then-line.json', `${array}\r\n${status('a')}\n`)), null, 'an array before the last line: from the start');
});

t.test('a line after the last result that is not one JSON object is read, and reported, from the end too', async (t) => {
  for (const [name, reason, status] of [
    ['broken after the result', 'not JSON', 0],
    ['cut after the result, a nested session last', 'truncated', 4],
    ['cut after the result, a type no agent writes', 'truncated', 4],
  ] as const) {
    const file = inputs.find(([n]) => n === name)![1];
    const seek = await run(`node "${bin}" "${file}"`);
    t.match(seek.stderr, new RegExp(`:3: ${reason}: `), `${name}: reported`);
    t.equal(seek.status, status, `${name}: status ${status}`);
  }
});

t.test('a bad line before the last result: not read from the end, so not reported; a pipe and --strict read it', async (t) => {
  const file = inputs.find(([n]) => n === 'noise in the middle')![1];
  const seek = await run(`node "${bin}" "${file}"`);
  t.same([seek.stdout, seek.stderr, seek.status], ['r\n', '', 0], 'from its end: the answer, and nothing said of a line never read');
  const pipe = await run(`cat "${file}" | node "${bin}"`);
  t.same([pipe.stdout, pipe.stderr, pipe.status], ['r\n', 'ndjson-result: stdin:2: not JSON: Update available\n', 0], 'from a pipe: read, and reported');
  const strict = await run(`node "${bin}" --strict "${file}"`);
  t.equal(strict.status, 2, '--strict reads the whole file');
  t.match(strict.stderr, /:2: not JSON: Update available/);
});

t.test('standard input: a file read in part before is read from where it was left, not from its end', async (t) => {
  const file = inputs.find(([n]) => n === 'other session after a result')![1];
  const rest = await run(`{ cat >/dev/null; node "${bin}"; } < "${file}"`);
  t.equal(rest.status, 4, 'nothing left to read: no result');
  t.match(rest.stderr, /the input held no events of a run/);
  const lines = fs.readFileSync(file, 'utf8').split('\n').length - 1;
  for (let skip = 1; skip <= lines; skip++) {
    const reads = 'IFS= read -r _; '.repeat(skip);
    const [left, piped] = await Promise.all([run(`{ ${reads}node "${bin}"; } < "${file}"`), run(`tail -n +${skip + 1} "${file}" | node "${bin}"`)]);
    t.same([left.stdout, left.status], [piped.stdout, piped.status], `${skip} lines read before: the answer of the lines left`);
  }
});
