// The library, imported by its package name as a user's program imports it.
import t from 'tap';
import type { Test } from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dedupe, readEvents, result, text, tools, messageText, EXIT, LineTooLongError, MAX_LINE, VERSION, type EventRecord, type InputProblem } from 'ndjson-agent';
import { ROOT } from './fixtures/lib/run.js';

const basic = fs.readFileSync(path.join(ROOT, 'test/fixtures/streams/basic.ndjson'));

async function collect(stream: NodeJS.ReadWriteStream, input: Buffer): Promise<string> {
  const out: Buffer[] = [];
  await pipeline(Readable.from([input]), stream, async function* (chunks: AsyncIterable<Buffer>) {
    for await (const chunk of chunks) out.push(chunk);
  });
  return Buffer.concat(out).toString('utf8');
}

t.test('the README example: the assistant text of a stream, once', async (t) => {
  let said = '';
  await pipeline(Readable.from([basic]), dedupe(), readEvents(), async function* (records: AsyncIterable<EventRecord>) {
    for await (const { event } of records) if (event.type === 'assistant') said += messageText(event);
  });
  t.equal(said, "I'll read package.json first.Adding the script now.Done: package.json now has a test script.");
});

t.test('each tool as a Transform', async (t) => {
  const r = result();
  t.equal(await collect(r, basic), "I'll read package.json first.Adding the script now.Done: package.json now has a test script.\n");
  t.equal(r.core.verdicts.length, 1);
  t.equal(r.core.verdicts[0]!.failed, false);
  t.equal(await collect(text(), basic), 'Done: package.json now has a test script.\n');
  const audit = (await collect(tools(), basic)).trim().split('\n').map((line) => JSON.parse(line) as { tool: string; status: string });
  t.same(audit.map((a) => [a.tool, a.status]), [['read', 'success'], ['edit', 'success']]);
});

t.test('tools: core.passed says whether the checks passed, as the command ends with 0 or 3', async (t) => {
  const passed = async (input: Buffer, options: Parameters<typeof tools>[0]): Promise<boolean> => {
    const stream = tools(options);
    await collect(stream, input);
    return stream.core.passed;
  };
  const lines = basic.toString('utf8').trimEnd().split('\n');
  // A call in Claude Code's dialect, which the audit does not see into.
  const foreign = Buffer.from(
    `${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'u1', name: 'Read', input: { file_path: '/r/.env' } }] }, session_id: 's' })}\n`,
  );
  // A tool call cut short: the audit cannot read it.
  const cut = Buffer.from(`${lines.filter((l) => l.includes('"tool_call"'))[0]!.slice(0, 80)}\n${lines.at(-1)}\n`);
  const cases: Array<[string, Buffer, Parameters<typeof tools>[0], boolean]> = [
    ['no check', basic, {}, true],
    ['a check that holds', basic, { denyRead: ['**/.env'] }, true],
    ['a check broken', basic, { noWrites: true }, false],
    ['calls of another dialect', foreign, { denyRead: ['**/.env'] }, false],
    ['calls of another dialect, no check', foreign, {}, true],
    ['an empty input', Buffer.alloc(0), { noPending: true }, false],
    ['an empty input, no check', Buffer.alloc(0), {}, true],
    ['a result alone', Buffer.from(`${lines.at(-1)}\n`), { denyWrite: ['x'] }, false],
    ['a tool call cut short', cut, { denyRead: ['**/.env'] }, false],
  ];
  for (const [what, input, options, expected] of cases) t.equal(await passed(input, options), expected, what);
  // The command agrees.
  for (const [what, input, options, expected] of cases) {
    const args = [...(options?.denyRead ?? []).flatMap((g) => ['--deny-read', g]), ...(options?.denyWrite ?? []).flatMap((g) => ['--deny-write', g])];
    if (options?.noWrites) args.push('--no-writes');
    if (options?.noPending) args.push('--no-pending');
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-tools.js'), ...args], { input });
    t.equal(r.status, expected ? 0 : 3, `ndjson-tools: ${what}`);
  }
});

t.test('strict: what was made before the bad line is read before the stream fails, through an async iterator as through a pipe', async (t) => {
  const lines = basic.toString('utf8').trimEnd().split('\n');
  const cut = lines.length - 1;
  // The last event (the result) after a bad line: each tool but ndjson-result has made output of the events before it.
  const input = [`${lines.slice(0, cut).join('\n')}\n`, 'not json\n', `${lines[cut]}\n`].map((l) => Buffer.from(l));
  const makers = {
    dedupe: () => dedupe({ strict: true }),
    text: () => text({ strict: true, all: true }),
    tools: () => tools({ strict: true }),
  };
  for (const [name, make] of Object.entries(makers)) {
    // What the stream writes of the lines before the bad one when they are all it is given.
    const before = await collect(make(), input[0]!);
    t.ok(before.length > 0, `${name}: makes output of the lines before the bad one`);
    const out: Buffer[] = [];
    const failure = await pipeline(Readable.from(input), make(), async function (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) out.push(chunk);
    }).then(
      () => undefined,
      (error: Error) => error,
    );
    t.equal(failure?.name, 'StrictError', `${name}: the stream fails`);
    t.equal(failure?.message, `stdin:${cut + 1}: not JSON: not json`, `${name}: at the bad line`);
    t.equal(Buffer.concat(out).toString('utf8'), before, `${name}: the output of the lines before the bad one, all read by the iterator`);
  }
  // readEvents() the same: the records of the lines before the bad one, then the failure.
  const records: EventRecord[] = [];
  const failed = await pipeline(Readable.from(input), readEvents({ strict: true }), async function (chunks: AsyncIterable<EventRecord>) {
    for await (const rec of chunks) records.push(rec);
  }).then(
    () => undefined,
    (error: Error) => error,
  );
  t.equal(failed?.name, 'StrictError', 'readEvents: the stream fails');
  t.same(
    records.map((r) => r.line),
    Array.from({ length: cut }, (_, i) => i + 1),
    'readEvents: the records of the lines before the bad one, all read by the iterator',
  );
  // An iterator that waits a little after each chunk, on input piped in 16 KiB writes: the stream may fail inside the read
  // that took its last chunk; the failure still comes, not an end.
  const said = (i: number) => `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"line ${i} ${'x'.repeat(250)}"}]},"session_id":"s"}\n`;
  const long = Buffer.from(`${Array.from({ length: 300 }, (_, i) => said(i)).join('')}not json\n${said(300)}`);
  const pieces: Buffer[] = [];
  for (let i = 0; i < long.length; i += 16384) pieces.push(long.subarray(i, i + 16384));
  for (const [name, make] of Object.entries(makers)) {
    const stream = make();
    Readable.from(pieces).pipe(stream);
    let slowly = 0;
    const ended = await (async () => {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        slowly += chunk.length;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      return 'ended';
    })().catch((error: Error) => error.name);
    t.equal(ended, 'StrictError', `${name}: read slowly, the stream fails (${slowly} bytes read)`);
  }
  // A 'readable' reader: the bad line in a write of its own (or the stream's last, without a newline), read with less
  // held than the reader asks for; and a reader that waits between reads, deaf to 'readable' meanwhile.
  const one = said(1);
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  // What the stream tells first: its end, or its failure.
  const firstHeard = (stream: NodeJS.ReadableStream) =>
    new Promise<string>((resolve) => {
      stream.on('end', () => resolve('end'));
      stream.on('error', (error: Error) => resolve(error.name));
    });
  for (const last of ['write', 'end'] as const) {
    const stream = dedupe({ strict: true });
    const got: Buffer[] = [];
    const heard = firstHeard(stream);
    stream.on('readable', () => {
      for (let chunk: Buffer | null; (chunk = stream.read(100) as Buffer | null) !== null; ) got.push(chunk);
    });
    stream.write(one);
    await wait(10);
    if (last === 'write') stream.write('not json\n');
    else stream.end('not json');
    t.same([await heard, Buffer.concat(got).toString()], ['StrictError', one], `read(100), the bad line in the last ${last}: the failure, no end`);
  }
  for (let run = 0; run < 5; run++) {
    const stream = dedupe({ strict: true });
    const got: Buffer[] = [];
    const heard = firstHeard(stream);
    let busy = false;
    stream.on('readable', async () => {
      if (busy) return;
      busy = true;
      for (let chunk: Buffer | null; (chunk = stream.read() as Buffer | null) !== null; await wait(1)) got.push(chunk);
      busy = false;
    });
    await wait(2);
    stream.write(`${one}not json\n`);
    t.same([await heard, Buffer.concat(got).toString()], ['StrictError', one], `a reader waiting between reads (run ${run + 1}): the failure, no end`);
  }
  // A reader of 'readable' events that asks for 100 bytes at a time: given the rest, less than it asked for, then the failure.
  const sized = dedupe({ strict: true });
  let taken = 0;
  const sizedFailure = await new Promise<Error>((resolve) => {
    sized.on('readable', () => {
      for (let chunk: Buffer | null; (chunk = sized.read(100) as Buffer | null) !== null; ) taken += chunk.length;
    });
    sized.on('error', resolve);
    sized.end(Buffer.concat(input));
  });
  t.equal(sizedFailure.name, 'StrictError', 'read(100): the stream fails');
  t.equal(taken, Buffer.byteLength(await collect(dedupe(), input[0]!)), 'read(100): all that was made before the bad line');
  // Nothing reads the stream: it fails at once, holding its output, as it would wait for ever to be read.
  const unread = dedupe({ strict: true });
  const failure = await new Promise<Error>((resolve) => {
    unread.on('error', resolve);
    unread.end(Buffer.concat(input));
  });
  t.equal(failure.name, 'StrictError', 'a stream nothing reads fails');
  t.ok(unread.readableLength > 0, 'holding output');
});

t.test('text({ all: true }) writes what ndjson-text --all writes: the prompt and the tool lines unless turned off', async (t) => {
  const cli = spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-text.js'), '--all', '-'], { input: basic, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' } });
  const all = await collect(text({ all: true }), basic);
  t.equal(all, cli.stdout, 'the same output as the command');
  t.match(all, /^> Read package.json/m, 'the prompt');
  t.match(all, /^→ read package.json/m, 'a tool line');
  const bare = await collect(text({ all: true, tools: false, user: false }), basic);
  t.notMatch(bare, /^(>|→) /m, 'neither, turned off');
});

t.test('readEvents: problems in input order to a data listener; records own their bytes', async (t) => {
  const seen: string[] = [];
  const s = readEvents();
  s.on('data', (r: EventRecord) => seen.push(`event ${r.line}`));
  s.on('problem', (p: InputProblem) => seen.push(`problem ${p.line}`));
  const ended = new Promise((resolve) => s.on('end', resolve));
  s.end('{"type":"a"}\nUpdate available\n{"type":"b"}\nnoise\nnoise\n{"type":"c"}\n');
  await ended;
  t.same(seen, ['event 1', 'problem 2', 'event 3', 'problem 4', 'problem 5', 'event 6']);
  // A writer that uses its buffer again once a write is done.
  const lines = ['{"type":"result","session_id":"AAAA","result":"first"}\n', '{"type":"result","session_id":"BBBB","result":"second"}\n'];
  const buf = Buffer.alloc(64);
  const again = readEvents();
  for (const line of lines) {
    const n = buf.write(line);
    await new Promise((resolve) => again.write(buf.subarray(0, n), resolve));
  }
  again.end();
  const raws: string[] = [];
  for await (const r of again as AsyncIterable<EventRecord>) raws.push(r.raw.toString());
  t.same(raws, lines.map((l) => l.trimEnd()), 'each record keeps its own line');
});

t.test('options: a string for a list of one; a value of the wrong shape is a TypeError when the stream is made', async (t) => {
  const lines = async (s: NodeJS.ReadWriteStream): Promise<string[]> => (await collect(s, basic)).split('\n').filter((l) => l !== '');
  t.same(await lines(tools({ tools: 'edit' })), await lines(tools({ tools: ['edit'] })), 'tools: a string, as a list of one');
  t.equal((await lines(tools({ tools: 'edit' }))).length, 1);
  const violations: string[] = [];
  await collect(tools({ denyTool: 'edit', onViolation: (v) => violations.push(`${v.check} ${v.pattern}`) }), basic);
  t.same(violations, ['--deny-tool edit'], 'denyTool: a string names one tool, not its letters');
  t.same(await lines(result({ fields: 'session_id' })), ['7f3a9c1e-2b44-4d0e-9a51-0c8e6f2d1b77'], 'fields: a string');
  t.same(await lines(dedupe({ keys: 'type' })), await lines(dedupe({ keys: ['type'] })), 'keys: a string');
  // As the command refuses them: --json with --field, --tsv without it.
  t.throws(() => result({ fields: ['session_id'], json: true }), new TypeError('options json and fields do not go together'));
  t.throws(() => result({ tsv: true }), new TypeError('option tsv needs fields'));
  t.throws(() => dedupe({ keys: ['uuid'], verify: true }), new TypeError('options verify and keys do not go together'));
  t.doesNotThrow(() => dedupe({ keys: [], verify: true }), 'no keys: the agent-stream rules, which verify checks');
  t.doesNotThrow(() => result({ fields: 'session_id', tsv: true }));
  t.throws(() => tools({ statuses: ['succes'] as never }), new TypeError('option statuses takes one of success, error, rejected, spawnError, failure, pending, unknown, not "succes"'));
  t.throws(() => tools({ paths: 'writen' as never }), new TypeError('option paths takes one of all, read, written, not "writen"'));
  t.throws(() => tools({ denyRead: 7 as never }), TypeError);
  t.throws(() => result({ fields: [1] as never }), TypeError);
  t.throws(() => dedupe({ keys: {} as never }), TypeError);
  t.throws(() => tools({ noPending: 'false' as never }), new TypeError('option noPending takes true or false, not "false"'));
  t.throws(() => tools({ noWrites: 1 as never }), TypeError);
  // What the command refuses as a usage error, which would otherwise turn a check off.
  t.throws(() => tools({ denyRead: ['**/.env'], tools: '' }), new TypeError('option tools takes non-empty names'));
  t.throws(() => tools({ tools: [''] }), TypeError);
  t.throws(() => tools({ denyRead: ['!**/.env'] }), new TypeError("option denyRead takes no negated glob ('!**/.env'): name the paths the check is about"));
  t.throws(() => tools({ requireWrite: '!docs/**' }), /^option requireWrite takes no negated glob/);
  t.throws(() => tools({ denyTool: [''] }), new TypeError('option denyTool needs a non-empty value'));
  // Flags of the other streams, as a check's are.
  t.throws(() => text({ all: true, thinking: 1 as never }), new TypeError('option thinking takes true or false, not 1'));
  t.throws(() => text({ color: 'never' as never }), new TypeError('option color takes true or false, not "never"'));
  t.throws(() => result({ json: 'yes' as never }), TypeError);
  t.throws(() => dedupe({ verify: 1 as never }), TypeError);
  // Every flag of tools(), not only the checks': 'false' would be taken as on.
  t.throws(() => tools({ summary: 'false' as never }), new TypeError('option summary takes true or false, not "false"'));
  t.throws(() => tools({ paths: 'all', absolute: 'false' as never }), new TypeError('option absolute takes true or false, not "false"'));
  t.throws(() => tools({ summary: true, json: 1 as never }), TypeError);
  t.throws(() => tools({ full: 0 as never }), TypeError);
  t.throws(() => tools({ paths: 'all', nullEnded: 'false' as never }), new TypeError('option nullEnded takes true or false, not "false"'));
  t.throws(() => result({ all: true, keepResults: 'false' as never }), new TypeError('option keepResults takes true or false, not "false"'));
  t.throws(() => result({ keepVerdicts: 0 as never }), TypeError);
  // How many results are held: 'x', -1 or NaN would let go of every one, the last's too.
  for (const heldResults of ['x', -1, Number.NaN, 0, 2.5]) {
    t.throws(() => result({ heldResults: heldResults as never }), { name: 'TypeError', message: /^option heldResults takes a whole number above 0, not / });
  }
  t.doesNotThrow(() => result({ heldResults: 1, keepResults: false, keepVerdicts: false }));
  // Combinations the commands refuse, of which one would be ignored.
  t.throws(() => tools({ json: true }), new TypeError('option json needs summary'));
  t.throws(() => tools({ summary: true, paths: 'all' }), new TypeError('options summary and paths do not go together'));
  t.throws(() => tools({ full: true, paths: 'read' }), new TypeError('option full only applies to records (not with summary or paths)'));
  t.throws(() => tools({ nullEnded: true }), new TypeError('option nullEnded needs paths'));
  t.doesNotThrow(() => tools({ paths: 'written', nullEnded: true }));
  t.throws(() => text({ thinking: true }), new TypeError('option thinking needs all'));
  t.doesNotThrow(() => text({ tools: false, user: false }), 'turned off, as --no-tools without --all is');
  t.doesNotThrow(() => tools({ summary: true, json: true, absolute: true }));
  // A line's limit: a number of bytes ('x' would lift it; '10' is no number).
  for (const make of [() => dedupe({ maxLine: 'x' as never }), () => tools({ maxLine: '10' as never }), () => readEvents({ maxLine: 0 }), () => text({ maxLine: 1.5 })]) {
    t.throws(make, /^option maxLine takes a whole number of bytes above 0, not /);
  }
  t.throws(() => text({ maxLine: 10n as never }), new TypeError('option maxLine takes a whole number of bytes above 0, not 10n'), 'a value JSON cannot write, named');
  t.throws(() => tools({ summary: 10n as never }), new TypeError('option summary takes true or false, not 10n'));
  // The streams' own flag, of every stream and of readEvents().
  for (const make of [() => text({ strict: 'false' as never }), () => tools({ strict: 1 as never }), () => readEvents({ strict: 'yes' as never })]) {
    t.throws(make, /^option strict takes true or false, not /);
  }
  // Keys and fields that are no paths: they would name nothing (every event the same key, every field empty).
  t.throws(() => dedupe({ keys: '' }), new TypeError('option keys takes dot paths to fields (uuid, .message.id, .a["b.c"]), not ""'));
  t.throws(() => dedupe({ keys: ['uuid', '.'] }), /^option keys takes dot paths to fields .*, not "\."$/);
  t.throws(() => result({ fields: '' }), /^option fields takes dot paths/);
  t.throws(() => result({ fields: '.content[1]text' }), /^option fields takes dot paths/);
  t.doesNotThrow(() => dedupe({ keys: ['uuid', '.message.id', '.a["b.c"]'] }));
  // A status in any case, as --status takes it.
  t.same(await lines(tools({ statuses: ['SUCCESS'] })), await lines(tools({ statuses: ['success'] })), 'statuses in any case');
  t.doesNotThrow(() => tools({ statuses: 'SpawnERROR' }));
  // A callback that is no function would fail only at the first line it is called for, the output lost; an input's name
  // that is no string would name the input in records as no file is named.
  t.throws(() => result({ onProblem: 'x' as never }), new TypeError('option onProblem takes a function, not "x"'));
  for (const make of [
    () => tools({ onViolation: true as never }),
    () => dedupe({ onFlushMismatch: {} as never }),
    () => text({ onSourceError: 1 as never }),
  ]) {
    t.throws(make, /^option on[A-Za-z]+ takes a function, not /);
  }
  t.throws(() => readEvents({ source: 5 as never }), new TypeError("option source takes a string, the input's name, not 5"));
  t.throws(() => tools({ source: ['a'] as never }), /^option source takes a string/);
  t.doesNotThrow(() => result({ onProblem: undefined, source: 'run.ndjson', onVerdict: () => {} }));
});

t.test('the declarations read under TypeScript before 5.7: no type arguments to Buffer or Uint8Array, which were not generic there', async (t) => {
  // Every declaration file the package's types reach from dist/index.d.ts.
  const seen = new Set<string>();
  const queue = [path.join(ROOT, 'dist/index.d.ts')];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = fs.readFileSync(file, 'utf8');
    for (const m of source.matchAll(/from '(\.[^']+)\.js'|import\('(\.[^']+)\.js'\)/g)) queue.push(path.join(path.dirname(file), `${m[1] ?? m[2]}.d.ts`));
    t.notMatch(source, /\b(?:Buffer|Uint8Array|ArrayBufferView)</, path.relative(ROOT, file));
  }
  t.ok(seen.size > 10, `${seen.size} files read`);
});

t.test('the tool streams take bytes as a stream of bytes does: Buffer, Uint8Array, strings in their encoding', async (t) => {
  const answer = "I'll read package.json first.Adding the script now.Done: package.json now has a test script.\n";
  const ended = (write: (s: ReturnType<typeof result>) => void): Promise<string> =>
    new Promise((resolve) => {
      const s = result();
      let out = '';
      s.on('data', (d: Buffer) => (out += d.toString()));
      s.on('error', (e: Error) => resolve(`error: ${e.message}`));
      s.on('end', () => resolve(out));
      write(s);
    });
  t.equal(await ended((s) => s.end(new Uint8Array(basic))), answer, 'a Uint8Array');
  t.equal(await ended((s) => s.end(new Uint8Array(basic.buffer, basic.byteOffset, basic.length))), answer, 'a Uint8Array over part of a larger memory');
  t.equal(await ended((s) => s.end(basic.toString('base64'), 'base64')), answer, 'a string in base64');
  t.equal(await ended((s) => s.end(basic.toString('latin1'), 'latin1')), answer, 'a string in latin1');
  t.equal(await ended((s) => s.end(basic.toString())), answer, 'a string, UTF-8 by default');
  t.match(await ended((s) => s.end(42 as unknown as Buffer)), /^error: a tool stream takes bytes: .*not number$/, 'anything else: an error at its write');
  // An object shaped as the chunks of the commands' own inputs is not one of them: no input is read from it.
  const shaped = { source: 'y', data: basic, release() {} } as unknown as Buffer;
  t.match(await ended((s) => s.end(shaped)), /^error: a tool stream takes bytes: .*not an object$/, 'an object with a source and data: an error at its write');
  // Nor are the records of readEvents(): piped into a tool stream, the pipeline fails with that error.
  const piped = pipeline(Readable.from([basic]), readEvents(), result(), new PassThrough().resume());
  await t.rejects(piped, { name: 'TypeError', message: /^a tool stream takes bytes: a Buffer, a Uint8Array or a string, not an object$/ }, 'records piped into a tool stream');
});

t.test('readEvents: records with their origin, problems as events', async (t) => {
  const problems: InputProblem[] = [];
  const records: EventRecord[] = [];
  const stream = readEvents({ source: 'run.ndjson' });
  stream.on('problem', (p: InputProblem) => problems.push(p));
  await pipeline(Readable.from([Buffer.from('{"type":"a"}\nUpdate available\n{"type":"b"}{"type":"c"}\n')]), stream, async function* (it: AsyncIterable<EventRecord>) {
    for await (const rec of it) records.push(rec);
  });
  t.same(records.map((r) => [r.line, r.event.type]), [[1, 'a'], [3, 'b'], [3, 'c']]);
  t.same(problems.map((p) => `${p.source}:${p.line}: ${p.reason}`), ['run.ndjson:2: not JSON']);
});

t.test('the exit table and version are exported', async (t) => {
  t.equal(EXIT.NO_RESULT, 4);
  t.match(VERSION, /^\d+\.\d+\.\d+/);
});

/**
 * Checks `lines`, a program that imports the package by its name, with tsc in
 * strict mode as a TypeScript user's project would: tsc must find nothing to say.
 */
function typeChecks(t: Test, lines: string[]): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-agent-types-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'ndjson-agent'), 'dir');
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  fs.writeFileSync(path.join(dir, 'use.ts'), lines.join('\n'));
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const ran = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules', '@types'), 'use.ts'], { cwd: dir, encoding: 'utf8' });
  t.equal(ran.stdout + ran.stderr, '', 'tsc finds nothing to say');
  t.equal(ran.status, 0);
}

t.test('a strict TypeScript program can name every type the streams and their options speak of', async (t) => {
  typeChecks(t, [
      "import { tools, dedupe, result, text } from 'ndjson-agent';",
      "import type { AuditedCall, CallStatus, DedupeCore, Emit, PathField, PathsChoice, PolicyOptions, ResultCore, SessionText, TextCore, ToolCore, ToolsCore, ToolsOptions, Violation } from 'ndjson-agent';",
      "const statuses: CallStatus[] = ['success', 'pending'];",
      "const paths: PathsChoice = 'written';",
      "const field: PathField = 'touched';",
      "const policy: PolicyOptions = { denyRead: ['**/.env'], noWrites: true };",
      "const seen: Violation[] = [];",
      'const options: ToolsOptions = { ...policy, statuses, paths, onViolation: (v: Violation) => seen.push(v) };',
      'const cores: [ToolsCore, DedupeCore, ResultCore, TextCore] = [tools(options).core, dedupe().core, result().core, text().core];',
      'const generic: ToolCore = cores[0];',
      'const emit: Emit = () => {};',
      'const calls: AuditedCall[] = [];',
      'const sessions: SessionText[] = cores[3].sessions;',
      // The types the options and the cores speak of, by name.
      "import type { FlushMismatch, KindCount, StatKind, Stretch, Unverified, VerifyFailure } from 'ndjson-agent';",
      'const mismatches: FlushMismatch[] = [];',
      'const failures: VerifyFailure[] = [];',
      'const unverified: Unverified[] = [];',
      'dedupe({ verify: true, onFlushMismatch: (m) => mismatches.push(m), onVerifyFailure: (f) => failures.push(f), onUnverified: (u) => unverified.push(u) });',
      "const kind: StatKind = 'assistant delta';",
      'const count: KindCount = cores[1].stats.kinds[kind];',
      "const stretch: Stretch = { text: '', deltas: 0 };",
      'export { field, generic, emit, calls, sessions, count, stretch };',
  ]);
});

t.test("readEvents' listeners are typed: a strict TypeScript program reads EventRecord and InputProblem from them", async (t) => {
  // Each @ts-expect-error must find its error: one that finds none is an error of its own.
  typeChecks(t, [
      "import { Readable } from 'node:stream';",
      "import { pipeline } from 'node:stream/promises';",
      "import { dedupe, readEvents } from 'ndjson-agent';",
      "import type { EventRecord, EventStream } from 'ndjson-agent';",
      'const stream: EventStream = readEvents();',
      "stream.on('data', (r) => { const source: string = r.source; const line: number = r.line; void source; void line; });",
      '// @ts-expect-error a record has no such field',
      "stream.on('data', (r) => { void r.bogus; });",
      '// @ts-expect-error a line is a number',
      "stream.once('problem', (p) => { const line: string = p.line; void line; });",
      "stream.addListener('problem', (p) => { const reason: string = p.reason; void reason; });",
      '// @ts-expect-error a problem has no event',
      "stream.prependListener('problem', (p) => { void p.event; });",
      "stream.on('end', () => {});",
      "await pipeline(Readable.from(['{}']), dedupe(), readEvents(), async function* (records: AsyncIterable<EventRecord>) {",
      '  for await (const { event } of records) void event.type;',
      '});',
  ]);
});

t.test('a line longer than maxLine fails every stream with a LineTooLongError, once what came before is read', async (t) => {
  t.equal(MAX_LINE, 2 ** 32, 'by default 4 GiB');
  const input = Buffer.concat([basic, Buffer.from(`{"type":"thinking","text":"${'x'.repeat(2000)}`)]);
  const events: EventRecord[] = [];
  const read = await pipeline(Readable.from([input]), readEvents({ maxLine: 1000 }), async function* (records: AsyncIterable<EventRecord>) {
    for await (const rec of records) events.push(rec);
  }).then(
    () => undefined,
    (error: unknown) => error,
  );
  t.ok(read instanceof LineTooLongError, 'readEvents: the failure');
  t.equal(events.length, basic.toString().trim().split('\n').length, 'readEvents: the events of the lines before it');
  for (const [name, stream] of [
    ['dedupe', dedupe({ maxLine: 1000 })],
    ['tools', tools({ maxLine: 1000 })],
  ] as const) {
    const failure = await collect(stream, input).then(
      () => undefined,
      (error: unknown) => error,
    );
    t.ok(failure instanceof LineTooLongError, `${name}: the failure`);
    t.match(String((failure as Error).message), /^stdin:\d+: line too long: \{"type":"thinking".* \(more than 1000 bytes: the rest of the input is not read\)$/, `${name}: its message`);
  }
});
