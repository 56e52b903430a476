// ndjson-tools in process: path forms, the checks' resistance to path tricks, pairing
// whatever the chunking, accounting for every tool_call event, safe text, and the
// agreement of --help and the man page with the options and the record.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { ROOT, memoryIo } from './fixtures/lib/run.js';
import { main, toolsOptions, toolsSpec } from '../src/cli/tools.js';
import { helpText, shortValues } from '../src/cli/common.js';
import { lowerEach, lowerPrefixEnd } from '../src/lower-case.js';
import { fileUrlPaths, isRoot, matchForms, normalizePath, normalizedForm, resolvePath, samePath, insidePath, shortForm } from '../src/tools/paths.js';
import { Policy, formatViolation } from '../src/tools/policy.js';
import type { PolicyOptions, Violation } from '../src/tools/policy.js';
import { MAX_REFUSALS, MAX_STARTS, ToolsCore } from '../src/tools/core.js';
import type { ToolsOptions } from '../src/tools/core.js';
import { tools } from '../src/tools/stream.js';
import { EventReader } from '../src/io/input.js';
import { flatToolNames, unreadToolCalls } from '../src/events.js';

const STREAMS = path.join(ROOT, 'test/fixtures/streams');
const stream = (name: string) => fs.readFileSync(path.join(STREAMS, name));

/** Runs the core over `input` fed in chunks of `size` bytes (0: whole); returns output and violations. */
function runCore(input: Buffer | string, options: ToolsOptions = {}, size = 0) {
  const violations: Violation[] = [];
  const core = new ToolsCore({ ...options, onViolation: (v) => violations.push(v) });
  let out = '';
  const emit = (d: string | Buffer) => (out += d.toString());
  // Lines of types the core does not need are handed over unparsed, as in the tool.
  // Lines that are not events go to the core, as in the tool (a tool call it cannot read fails the checks: core.passed).
  const reader = new EventReader({ record: (r) => core.record(r, emit), problem: (p) => core.problem(p) }, { needs: (type) => core.needs(type) });
  reader.startSource('in');
  const buf = Buffer.isBuffer(input) ? input : Buffer.from(input);
  if (size <= 0) reader.write(buf);
  else for (let i = 0; i < buf.length; i += size) reader.write(buf.subarray(i, i + size));
  reader.endSource();
  core.end(emit);
  return { out, violations, core };
}

const records = (out: string) => out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

t.test('numeric call ids a double does not hold pair as written, at every chunk size', async (t) => {
  const call = (phase: string, id: string, file: string, result = '') =>
    `{"type":"tool_call","subtype":"${phase}","call_id":${id},"tool_call":{"readToolCall":{"args":{"path":"${file}"}${result}}},"session_id":"s"}`;
  const input = [
    '{"type":"system","subtype":"init","session_id":"s","cwd":"/r"}',
    call('started', '12345678901234567890', 'a'),
    call('started', '12345678901234567891', 'b'),
    call('completed', '12345678901234567891', 'b', ',"result":{"success":{}}'),
  ].join('\n') + '\n';
  for (let size = 0; size <= input.length; size += size < 40 ? 1 : 37) {
    const { out, violations } = runCore(input, { noPending: true }, size);
    t.same(
      records(out).map((r) => [r.call_id, r.status, r.read]),
      [
        ['12345678901234567891', 'success', ['b']],
        ['12345678901234567890', 'pending', ['a']],
      ],
      `size ${size}`,
    );
    t.equal(violations.length, 1, `size ${size}: the call never completed fails --no-pending`);
  }
  // A decimal a double rounds to an integer, and that integer, are two ids.
  for (const [first, second] of [['1.00000000000000000001', '1'], ['1e-400', '0']]) {
    const two = runCore([input.split('\n')[0], call('started', first, 'a'), call('completed', second, 'b', ',"result":{"success":{}}')].join('\n') + '\n', { noPending: true });
    t.same(records(two.out).map((r) => [r.call_id, r.status]), [[second, 'success'], [first, 'pending']], `${first} and ${second}`);
  }
  // Two spellings of one number are one id.
  const spelt = runCore([input.split('\n')[0], call('started', '1.5', 'a'), call('completed', '1.50', 'a', ',"result":{"success":{}}')].join('\n') + '\n', { noPending: true });
  t.same(records(spelt.out).map((r) => [r.call_id, r.status]), [['1.5', 'success']]);
  t.equal(spelt.violations.length, 0);
  // Claude Code's ids, of tool_use blocks, tool_result blocks and a result's permission_denials.
  const use = (id: string, file: string) => `{"type":"tool_use","id":${id},"name":"Read","input":{"file_path":"/r/${file}"}}`;
  const answer = (id: string, error: boolean) => `{"tool_use_id":${id},"type":"tool_result","content":"x","is_error":${error}}`;
  const claude = [
    '{"type":"system","subtype":"init","session_id":"s","cwd":"/r"}',
    `{"type":"assistant","message":{"role":"assistant","content":[${use('12345678901234567890', 'a')},${use('12345678901234567891', 'b')}]},"session_id":"s"}`,
    `{"type":"user","message":{"role":"user","content":[${answer('12345678901234567891', false)},${answer('12345678901234567890', true)}]},"session_id":"s"}`,
    '{"type":"result","subtype":"success","is_error":false,"result":"","session_id":"s","permission_denials":[{"tool_name":"Read","tool_use_id":12345678901234567890}]}',
  ].join('\n') + '\n';
  t.same(
    records(runCore(claude).out).map((r) => [r.call_id, r.status, r.read]),
    [
      ['12345678901234567891', 'success', ['/r/b']],
      ['12345678901234567890', 'rejected', ['/r/a']],
    ],
  );
});

t.test('path forms', async (t) => {
  t.equal(normalizePath('./a//b/../c/'), 'a/c');
  t.equal(normalizePath('../x'), '../x');
  t.equal(resolvePath('src/../.env', '/home/u/p'), '/home/u/p/.env');
  t.equal(resolvePath('/etc//passwd', '/home/u/p'), '/etc/passwd');
  t.equal(resolvePath('a', undefined), 'a');
  t.equal(insidePath('/home/u/p/x/y', '/home/u/p', false), 'x/y');
  t.equal(insidePath('/home/u/p', '/home/u/p/', false), '.');
  t.equal(insidePath('/home/u/px/y', '/home/u/p', false), undefined, 'a sibling with a common prefix is not inside');
  t.equal(insidePath('/Home/U/p/x', '/home/u/p', true), 'x');
  t.equal(insidePath('/Home/U/p/x', '/home/u/p', false), undefined);
  // A character whose lower case is longer (`İ` is two code units lower-cased) cuts the path where the cwd ends.
  t.equal(insidePath('/home/\u0130lker/app/.github/ci.yml', '/home/\u0130lker/app', true), '.github/ci.yml');
  t.equal(insidePath('/home/i\u0307lker/app/x', '/home/\u0130lker/app', true), 'x', 'the lower case of the cwd, spelt out');
  t.equal(insidePath('/home/\u0130lker/app', '/home/\u0130lker/app/', true), '.');
  t.equal(insidePath('/home/\u0130lker/apps/x', '/home/\u0130lker/app', true), undefined);
  t.equal(insidePath('/home/\u0130/x', '/home/i', true), undefined, 'the cwd a part of a character lower-cased');
  t.equal(insidePath('/\u039f\u0394\u039f\u03a3/x', '/\u03bf\u03b4\u03bf\u03c3', true), 'x', 'a final sigma as any other');
  // Each letter lower-cased alone: a Σ the same at a name's end as within a longer string.
  t.equal(lowerEach('\u0391\u03a3'), lowerEach('\u0391\u03a3/keys').slice(0, 2));
  t.equal(lowerEach('AB\u0130'), 'abi\u0307');
  t.equal(lowerEach('\u03bf\u03b4\u03bf\u03c2'), lowerEach('\u039f\u0394\u039f\u03a3'), 'a final sigma is a sigma');
  t.equal(insidePath('/work/\u03bf\u03b4\u03bf\u03c2/x', '/work/\u039f\u0394\u039f\u03a3', true), 'x');
  t.equal(lowerPrefixEnd('/\u0130x/y', lowerEach('/\u0130x/')), 4, 'the end in the string, not in its lower case');
  t.equal(lowerPrefixEnd('/\u0130x/y', '/ix/'), undefined);
  // Outside the cwd, the path from it as the path writes its names: a glob in any case matches it.
  t.ok(matchForms('/repo/\u0130x/x', '/repo/app', true).includes('../\u0130x/x'));
  t.ok(matchForms('/REPO/\u1e9e/y', '/repo/app', true).includes('\u1e9e/y'));
  t.ok(samePath('summary.txt', '/Users/u/p/summary.txt', '/Users/u/p'));
  t.ok(samePath('summary.txt', '/Users/u/p/summary.txt', undefined), 'without a cwd, a result path ending in the argument');
  t.notOk(samePath('../summary.txt', '/Users/u/p/summary.txt', undefined));
  t.notOk(samePath('a.txt', '/p/b.txt', '/p'));
  t.same(matchForms('sub/../.env', '/home/u/p', true).sort(), ['.env', '/home/u/p/.env'].sort());
  t.ok(matchForms('..\\..\\secrets\\k.pem', undefined, true).includes('secrets/k.pem'), 'backslashes and leading .. segments');
  t.notOk(matchForms('../k.pem', undefined, false).includes('k.pem'), 'strict forms keep the leading ..');
});

// One read (or write) of `p` in a session whose cwd is `cwd`, through the real core.
function oneCall(kind: 'read' | 'write' | 'edit' | 'delete', p: string, cwd: string | undefined, status = 'success') {
  const init = { type: 'system', subtype: 'init', session_id: 's', ...(cwd ? { cwd } : {}) };
  const key = `${kind}ToolCall`;
  const start = { type: 'tool_call', subtype: 'started', call_id: 'c', session_id: 's', tool_call: { [key]: { args: { path: p } } } };
  const done = { type: 'tool_call', subtype: 'completed', call_id: 'c', session_id: 's', tool_call: { [key]: { result: { [status]: {} } } } };
  return [init, start, done].map((e) => JSON.stringify(e)).join('\n') + '\n';
}
const violates = (input: string, options: PolicyOptions) => runCore(input, options).violations.length > 0;

t.test('deny globs are not fooled by path tricks', async (t) => {
  const cwd = '/home/u/p';
  const deny = { denyRead: ['**/.env'] };
  for (const p of ['.env', './.env', '././.env', 'src/../.env', 'src//..//.env', './/.env', '/home/u/p/.env', '/home/u/p/sub/../.env', '/home/u/p//.env', 'a/b/c/../../../.env']) {
    t.ok(violates(oneCall('read', p, cwd), deny), `read ${p}`);
  }
  for (const p of ['.ENV', '.Env', 'CONFIG/.eNv']) t.ok(violates(oneCall('read', p, cwd), deny), `case: ${p}`);
  t.ok(violates(oneCall('read', '../../.env', '/home/u/p/a/b'), { denyRead: ['/home/u/p/.env'] }), 'relative to another cwd');
  t.ok(violates(oneCall('read', '../secrets/k.pem', '/home/u/p/sub'), { denyRead: ['secrets/**'] }), 'outside the cwd, relative glob');
  t.ok(violates(oneCall('read', '/home/u/p/secrets/k.pem', '/home/u/p/sub'), { denyRead: ['../secrets/**'] }), 'outside the cwd, absolute path, glob with ..');
  t.ok(violates(oneCall('read', '/home/caf\u00e9/secrets/k', '/home/cafe\u0301'), { denyRead: ['secrets/**'] }), 'a cwd in decomposed Unicode, a path composed');
  t.ok(violates(oneCall('read', '/home/cafe\u0301/secrets/k', '/home/caf\u00e9'), { denyRead: ['secrets/**'] }), 'a cwd composed, a path decomposed');
  t.ok(violates(oneCall('read', '/home/u/p/secrets/k.pem', cwd), { denyRead: ['secrets/**'] }), 'absolute path, relative glob');
  t.ok(violates(oneCall('read', '/HOME/u/p/secrets/k.pem', cwd), { denyRead: ['secrets/**'] }), 'absolute path in another case');
  t.ok(violates(oneCall('read', 'C:\\proj\\.env', undefined), deny), 'Windows separators');
  t.ok(violates(oneCall('read', 'keys/id.pem', cwd), { denyRead: ['*.pem'] }), 'a glob without a slash matches the name anywhere');
  t.ok(violates(oneCall('write', './secrets/../secrets/x', cwd), { denyWrite: ['./secrets/*'] }), 'a glob with ./');
  t.ok(violates(oneCall('edit', 'src/a.ts', cwd), { denyWrite: ['src/**'] }), 'edits are writes');
  t.ok(violates(oneCall('delete', 'src/a.ts', cwd), { denyWrite: ['src/**'] }), 'deletes are writes');
  t.ok(violates(oneCall('read', '.env', cwd, 'error'), deny), 'a failed read may have read');
  t.notOk(violates(oneCall('read', '.env', cwd, 'rejected'), deny), 'a refused read did not read');
  t.notOk(violates(oneCall('read', '.envrc', cwd), deny));
  t.notOk(violates(oneCall('read', 'src/env.ts', cwd), deny));
  t.notOk(violates(oneCall('read', 'secrets/k.pem', cwd), { denyWrite: ['secrets/**'] }), 'a read is not a write');
  t.notOk(violates(oneCall('write', 'dist/../src/a.ts', cwd), { denyWrite: ['dist/**'] }), '.. leaves the directory');
  // Spellings a file system takes for the same file.
  t.ok(violates(oneCall('read', 'cle\u0301.env', cwd), { denyRead: ['clé.env'] }), 'a name decomposed (macOS), a glob composed');
  t.ok(violates(oneCall('read', 'clé.env', cwd), { denyRead: ['cle\u0301.env'] }), 'a glob decomposed');
  for (const p of ['.env.', '.env. .', '.env ', '.env::$DATA', '.ENV:stream:$data', 'C:\\proj\\.env::$DATA']) {
    t.ok(violates(oneCall('read', p, 'C:\\proj'), deny), `as Windows reads ${p}`);
  }
  // Letters NTFS takes for ASCII ones, as it compares names in upper case: `ı` for `i`, `ſ` for `s`.
  t.ok(violates(oneCall('write', '.g\u0131thub/workflows/x.yml', 'C:\\proj'), { denyWrite: ['.github/**'] }), 'as Windows reads .gıthub');
  t.ok(violates(oneCall('read', '.\u017fsh/id_rsa', cwd), { denyRead: ['**/.ssh/**'] }), 'as Windows reads .ſsh');
  t.notOk(violates(oneCall('read', '.envx.', cwd), deny));
  t.ok(violates(oneCall('write', 'CHANGELOG.md.', cwd), { requireWrite: ['CHANGELOG.md'] }), 'required writes are matched as written');
});

// One completed call of the tool `key` (a `…ToolCall` key, or `function` with its name), with these args.
function callOf(key: string, args: Record<string, unknown>, cwd = '/home/u/p', name?: string) {
  const init = { type: 'system', subtype: 'init', session_id: 's', cwd };
  const body = name === undefined ? { args, result: { success: {} } } : { name, arguments: JSON.stringify(args), result: { success: {} } };
  const done = { type: 'tool_call', subtype: 'completed', call_id: 'c', session_id: 's', tool_call: { [key]: body } };
  return [init, done].map((e) => JSON.stringify(e)).join('\n') + '\n';
}

t.test('a deny glob names what it matches and everything under it, as a .gitignore line does', async (t) => {
  const cwd = '/home/u/p';
  for (const p of ['.github/workflows/ci.yml', './.github/x', '/home/u/p/.github/ci.yml', 'app/.github/ci.yml', '.GITHUB/ci.yml']) {
    t.ok(violates(oneCall('write', p, cwd), { denyWrite: ['.github'] }), `--deny-write .github: ${p}`);
    t.ok(violates(oneCall('write', p, cwd), { denyWrite: ['.github/'] }), `--deny-write .github/: ${p}`);
  }
  t.ok(violates(oneCall('read', 'secrets-prod/db/key', cwd), { denyRead: ['secrets*'] }), 'a glob with a wildcard, a directory it matches');
  t.ok(violates(oneCall('read', '/home/u/p/config/.env/local', cwd), { denyRead: ['**/.env'] }), 'a directory named as a file would be');
  t.ok(violates(oneCall('write', 'config/keys/a/b', cwd), { denyWrite: ['config/keys'] }), 'a glob with a slash, from the cwd');
  t.notOk(violates(oneCall('write', 'app/config/keys/a', cwd), { denyWrite: ['config/keys'] }), 'a glob with a slash is not found at any depth');
  t.ok(violates(oneCall('write', '/etc/app/conf.d/x', cwd), { denyWrite: ['/etc/app'] }), 'an absolute glob');
  t.ok(violates(oneCall('write', 'src/a.ts', cwd), { denyWrite: ['/home/u'] }), 'an absolute glob above the project: a relative path resolved under it');
  t.ok(violates(oneCall('write', '/srv/a', cwd), { denyWrite: ['/'] }), 'the root names every file');
  t.ok(violates(oneCall('write', 'src/a.ts', cwd), { denyWrite: ['./'] }), 'the project names every file in it');
  t.ok(violates(oneCall('write', 'C:\\proj\\.github\\ci.yml', 'C:\\proj'), { denyWrite: ['.github'] }), 'a Windows path');
  t.ok(violates(oneCall('write', 'x.txt', '\\\\srv\\share'), { denyWrite: ['\\\\srv\\share'] }), 'a share, a path written relative');
  t.ok(violates(oneCall('write', '\\\\srv\\share\\x.txt', '\\\\srv\\share'), { denyWrite: ['\\\\srv\\share'] }), 'a share, a path written absolute');
  t.notOk(violates(oneCall('write', '.github-old/ci.yml', cwd), { denyWrite: ['.github'] }), 'another name that starts the same');
  t.notOk(violates(oneCall('write', 'src/a.ts', cwd), { denyWrite: ['/home/u/q'] }), 'a sibling of the project');
  t.ok(violates(oneCall('write', 'docs/a.md', cwd), { requireWrite: ['docs'] }), 'a required write is the path asked for, not one under it');
  // A relative glob is not tried on the directories above the project: they are where it was run, not what it did.
  const above: Array<[string, string, 'read' | 'write', string]> = [
    ['/tmp/work', 'src/a.ts', 'write', 'tmp'],
    ['/tmp/work', 'src/a.ts', 'write', '**/tmp'],
    ['/home/u/secrets-manager', 'README.md', 'read', 'secrets*'],
    ['/home/u/.cursor/worktrees/shop/abc1', 'package.json', 'read', '.*'],
    ['/home/dev/shop', '/home/dev/shop/notes.md', 'write', 'shop'],
    ['C:\\proj', 'src\\a.ts', 'write', 'proj'],
    ['\\\\srv\\share\\app', '\\\\srv\\share\\app\\x.txt', 'write', 'share'],
    // However the path is spelt: a file URL, a way out of the project and back.
    ['/tmp/work', 'file:///tmp/work/a.ts', 'write', 'tmp'],
    ['/tmp/work', 'file://localhost/tmp/work/a.ts', 'write', 'tmp/'],
    ['/home/runner/work/repo/repo', 'file:///home/runner/work/repo/repo/x', 'write', 'work'],
    ['C:\\proj', 'file:///C:/proj/x.txt', 'write', 'proj'],
    ['/home/dev/shop', '../shop/notes.md', 'write', 'shop'],
    ['/tmp/work', '../../tmp/work/src/a.ts', 'write', 'tmp'],
    ['/repo/packages/app', '../../packages/lib/x.ts', 'write', 'packages'],
    ['/repo/packages/app', 'src/../../app/x.ts', 'write', 'app'],
    ['C:\\tmp\\work', '..\\..\\tmp\\work\\a.ts', 'write', 'tmp'],
  ];
  for (const [dir, p, kind, glob] of above) {
    const options = kind === 'read' ? { denyRead: [glob] } : { denyWrite: [glob] };
    t.notOk(violates(oneCall(kind, p, dir), options), `${glob}, ${p} from ${dir}`);
  }
  t.notOk(violates(callOf('grepToolCall', { pattern: 'x', path: '.' }, '/tmp/work'), { denyRead: ['tmp'] }), 'a search of the project from /tmp/work');
  t.notOk(violates(callOf('grepToolCall', { pattern: 'x', path: 'file:///tmp/work' }, '/tmp/work'), { denyRead: ['tmp'] }), 'the same, as a file URL');
  // Each alternative of a glob's braces is read as a glob of its own.
  t.ok(violates(oneCall('write', 'app/secrets/k', '/tmp/work'), { denyWrite: ['{secrets,config/keys}'] }), 'a name at any depth, in braces');
  t.ok(violates(oneCall('write', 'config/keys/k', '/tmp/work'), { denyWrite: ['{secrets,config/keys}'] }), 'a directory from the cwd, in braces');
  t.notOk(violates(oneCall('write', 'app/config/keys/k', '/tmp/work'), { denyWrite: ['{secrets,config/keys}'] }), 'not at any depth, in braces');
  // A share's host and name are its root, not directories of the path.
  t.notOk(violates(oneCall('write', '\\\\host\\share\\x', 'C:\\proj'), { denyWrite: ['share'] }), 'a share from another root');
  t.ok(violates(oneCall('write', '\\\\host\\share\\share\\x', 'C:\\proj'), { denyWrite: ['share'] }), 'a directory of that name on a share');
  // What a glob matches itself is tried on every form of a path, as documented: **/tmp/** matches /tmp/work/src/a.ts.
  t.ok(violates(oneCall('write', 'src/a.ts', '/tmp/work'), { denyWrite: ['**/tmp/**'] }), '**/tmp/** from /tmp/work');
  // Outside the project, a relative glob still names what it would (as `tmp/**` did): the directories of the path from the cwd.
  t.ok(violates(oneCall('write', '/tmp/x', cwd), { denyWrite: ['tmp'] }), 'a file outside the project, under a directory of that name');
  t.ok(violates(oneCall('write', '../x.txt', cwd), { denyWrite: ['..'] }), '.. names what lies outside the cwd');
  t.notOk(violates(oneCall('write', 'src/a.ts', cwd), { denyWrite: ['..'] }), '.. names no file of the project');
  t.notOk(violates(oneCall('write', '/etc/passwd', cwd), { denyWrite: ['./'] }), './ names no file outside the project');
  // With a slash only at its end, the directory itself too is found at any depth (deleting it deletes what is under it).
  t.ok(violates(oneCall('delete', 'app/.github', cwd), { denyWrite: ['.github/'] }), 'deleting a nested .github for .github/');
  t.notOk(violates(oneCall('delete', 'app/.github', cwd), { denyWrite: ['/etc/.github/'] }), 'an absolute glob does not float');
  // Deleting the project deletes what an absolute glob names in it.
  for (const glob of ['/**/.env', '/{home,root}/**/.env']) t.ok(violates(oneCall('delete', '.', cwd), { denyWrite: [glob] }), `deleting the project, ${glob}`);
  t.ok(violates(oneCall('delete', '..', 'C:\\Users\\me\\proj'), { denyWrite: ['C:\\Users\\**\\.env'] }), 'deleting above a Windows project');
  // Every spelling of a path counts: one read as a name in the cwd does not hide another read as a way out of it.
  t.ok(violates(oneCall('write', '..\\..\\..\\etc\\passwd', cwd), { denyWrite: ['etc'] }), 'backslashes as separators');
  t.ok(violates(oneCall('write', 'file:///home/u/p/%2e%2e/%2e%2e/%2e%2e/etc/passwd', cwd), { denyWrite: ['..'] }), 'a file URL out of the project');
  t.ok(violates(oneCall('write', 'C:\\x\\secrets\\y', cwd), { denyWrite: ['secrets'] }), 'a Windows path in a POSIX session');
  t.ok(violates(oneCall('write', 'D:\\x', 'C:\\proj'), { denyWrite: ['..'] }), 'another drive is outside the project');
  t.notOk(violates(callOf('lsToolCall', { path: '.' }, '/tmp/work'), { denyRead: ['work/'] }), 'a listing of the project is not of the cwd\'s own name');
  t.ok(violates(callOf('lsToolCall', { path: 'app/work' }, '/tmp/work'), { denyRead: ['work/'] }), 'a listing of a directory of that name in it');
  // No cwd: where the project starts is not known, and a glob with a slash is looked for at any depth.
  t.ok(violates(oneCall('write', '/home/u/p/config/keys/a', undefined), { denyWrite: ['config/keys'] }), 'no cwd, a glob with a slash');
  t.ok(violates(oneCall('write', '/home/u/p/tmp/a', undefined), { denyWrite: ['**/tmp'] }), 'no cwd, a name after **');
});

t.test('a path with no cwd is tried from each of its directories, in each of its spellings', async (t) => {
  // Decomposed Unicode and a name with a trailing dot, as Windows reads it: each tail in each spelling.
  const forms = matchForms('/x/cafe\u0301./secrets/k.pem', undefined, true);
  for (const tail of ['cafe\u0301./secrets/k.pem', 'caf\u00e9./secrets/k.pem', 'caf\u00e9/secrets/k.pem', 'secrets/k.pem', 'k.pem']) t.ok(forms.includes(tail), tail);
  t.notOk(forms.includes('/secrets/k.pem'), 'a tail is relative, not from a root');
  t.ok(violates(oneCall('write', '/x/cafe\u0301./secrets/k.pem', undefined), { denyWrite: ['caf\u00e9/secrets/**'] }), 'a tail spelt as Windows reads it');
  // With a cwd, where the project starts is known: no tails.
  t.notOk(matchForms('/x/y/secrets/k.pem', '/home/u/p', true).includes('secrets/k.pem'), 'not with a cwd');
});

t.test('a deep path with no cwd: what lies under a deny glob is looked for in the path from its root, not in each of its suffixes', async (t) => {
  // 3,200 directories: tried on each of its 3,200 suffixes, each glob took minutes, past this test's time limit.
  const dirs = Array.from({ length: 3200 }, (_, i) => `d${i}`);
  const deep = `/${dirs.join('/')}/f.txt`;
  for (const glob of ['.github', '**/tmp', 'config/keys', '**/a/**/b']) t.notOk(violates(oneCall('write', deep, undefined), { denyWrite: [glob] }), glob);
  t.ok(violates(oneCall('write', deep, undefined), { denyWrite: ['d3000'] }), 'a directory deep in it');
  t.ok(violates(oneCall('write', deep, undefined), { denyWrite: ['d2000/d2001'] }), 'two directories deep in it');
});

t.test('a directory a deny glob names is denied itself: deleting or searching it acts on every file under it', async (t) => {
  const cwd = '/home/u/p';
  t.ok(violates(oneCall('delete', '.github', cwd), { denyWrite: ['.github/**'] }), 'deleting the directory');
  // Deleting a directory above what a glob names deletes that too.
  for (const p of ['.', './', '/home/u/p', '/home/u', '..', '/', '.github', '.GitHub', '/home/u/p/.github']) {
    t.ok(violates(oneCall('delete', p, cwd), { denyWrite: ['.github/workflows/**'] }), `deleting ${p} deletes .github/workflows`);
  }
  t.ok(violates(oneCall('delete', 'config', cwd), { denyWrite: ['config/.env'] }), 'deleting the directory of a denied file');
  t.ok(violates(oneCall('delete', '.', cwd), { denyWrite: ['**/.env'] }), 'deleting the project deletes every .env in it');
  t.ok(violates(oneCall('delete', '/home/u', cwd), { denyWrite: ['/home/u/p/secrets/**'] }), 'an absolute glob, a directory above');
  // A directory a glob names after a `**`, or in one of its braces: deleting it, anywhere the glob puts it, deletes what it names.
  for (const [p, glob] of [
    ['.github', '**/.github/workflows/**'],
    ['x/.github', '**/.github/workflows/**'],
    ['/home/u/p/.github', '**/.github/workflows/**'],
    ['.github/workflows', '**/.github/workflows/**'],
    ['.github', '{.github,.gitlab}/workflows/**'],
    ['.gitlab', '{.github,.gitlab}/workflows/**'],
    ['secrets', '**/secrets/*.key'],
    ['src/a/secrets', 'src/**/secrets/**'],
    ['packages', 'packages/*/.env'],
  ]) {
    t.ok(violates(oneCall('delete', p!, cwd), { denyWrite: [glob!] }), `deleting ${p} deletes what ${glob} names`);
  }
  // A path a `*` (or another pattern) of the glob stands for is, as one a `**` stands for, not known to hold what it names: a
  // directory, or a file (a delete does not say which).
  for (const [p, glob] of [
    ['packages/api', 'packages/*/.env'],
    ['packages/README.md', 'packages/*/.env'],
    ['src/old.ts', 'src/*/config.json'],
    ['README.md', '*/.env'],
    ['app', '*/config/*.yml'],
  ]) {
    t.notOk(violates(oneCall('delete', p!, cwd), { denyWrite: [glob!] }), `deleting ${p} is not known to delete what ${glob} names`);
  }
  for (const [p, glob] of [
    ['src', '**/.env'],
    ['workflows', '**/.github/workflows/**'],
    ['lib/secrets', 'src/**/secrets/**'],
    ['.git', '**/.github/**'],
    ['.gitea', '{.github,.gitlab}/workflows/**'],
  ]) {
    t.notOk(violates(oneCall('delete', p!, cwd), { denyWrite: [glob!] }), `deleting ${p} is not above what ${glob} names`);
  }
  for (const p of ['src', 'src/old.ts', '.githubx', '.github/workflow']) {
    t.notOk(violates(oneCall('delete', p, cwd), { denyWrite: ['.github/workflows/**', 'config/.env'] }), `deleting ${p} is not above them`);
  }
  // The root holds every file: an absolute glob's too, and on Windows a drive's root, in any spelling.
  for (const p of ['/', '../../..', '//']) t.ok(violates(oneCall('delete', p, cwd), { denyWrite: ['/home/u/p/.env'] }), `deleting ${p}`);
  for (const p of ['C:\\', 'C:/', 'c:\\', '\\', '/']) {
    t.ok(violates(oneCall('delete', p, 'C:\\proj'), { denyWrite: ['**/.env'] }), `deleting ${p} in C:\\proj`);
    t.ok(violates(oneCall('delete', p, 'C:\\proj'), { denyWrite: ['C:/proj/.env'] }), `deleting ${p} in C:\\proj, an absolute glob`);
  }
  // With no cwd known too.
  for (const p of ['/', 'C:\\', '\\']) {
    for (const glob of ['secrets/**', '/etc/**', '**/.env']) t.ok(violates(oneCall('delete', p, undefined), { denyWrite: [glob] }), `deleting ${p} with no cwd, ${glob}`);
  }
  t.equal(normalizePath('C:/'), 'C:/', 'a drive root keeps its slash: C: is the drive\'s current directory');
  // A session at a drive's root: its files are inside it.
  t.notOk(violates(oneCall('write', 'C:\\src\\a.ts', 'C:\\'), { requireWrite: ['src/**'] }), 'a required write met in a cwd of C:\\');
  t.equal(insidePath('C:/src/a.ts', 'C:/', false), 'src/a.ts');
  t.notOk(violates(oneCall('delete', 'src', cwd), { denyWrite: ['**/.env', '.env'] }), 'a directory that may hold a .env: not known to');
  t.notOk(violates(oneCall('delete', '/tmp', cwd), { denyWrite: ['/home/u/p/**'] }), 'elsewhere');
  t.notOk(violates(oneCall('read', '.', cwd), { denyWrite: ['.github/**'] }), 'only a delete');
  const above = runCore(oneCall('delete', '.', cwd), { denyWrite: ['.github/**', '**/.env'] }).violations;
  t.equal(above.length, 1, 'one line for the path');
  t.match(formatViolation(above[0]!), /--deny-write '\.github\/\*\*': delete \. \(call c, success\)$/);
  for (const p of ['secrets', 'secrets/', './secrets', '/home/u/p/secrets']) {
    t.ok(violates(callOf('grepToolCall', { pattern: 'password', path: p }), { denyRead: ['secrets/**'] }), `searching ${p}`);
  }
  t.notOk(violates(oneCall('delete', 'lib/.github', cwd), { denyWrite: ['.github/**'] }), 'the directory named, not any directory of that name');
  t.notOk(violates(oneCall('delete', '.githubx', cwd), { denyWrite: ['.github/**'] }));
  t.notOk(violates(callOf('grepToolCall', { pattern: 'x', path: 'src' }), { denyRead: ['secrets/**'] }), 'another directory');
  t.ok(violates(oneCall('write', 'docs', cwd), { requireWrite: ['docs/**'] }), 'a required write is matched as its glob is: docs is no file of docs/**');
});

t.test('a glob ending in a slash names every file of its directory', async (t) => {
  const cwd = '/home/u/p';
  t.ok(violates(oneCall('write', '.github/workflows/ci.yml', cwd), { denyWrite: ['.github/'] }), '.github/ is .github/**');
  t.ok(violates(oneCall('read', 'secrets/api.key', cwd), { denyRead: ['./secrets//'] }));
  t.ok(violates(oneCall('delete', '.github', cwd), { denyWrite: ['.github/'] }), 'and the directory itself, as .github/** does');
  t.notOk(violates(oneCall('write', 'docs/a.md', cwd), { denyWrite: ['.github/'] }));
  t.notOk(violates(oneCall('write', 'docs/a.md', cwd), { requireWrite: ['docs/'] }), 'a required write under the directory is met');
  t.ok(violates(oneCall('write', 'src/a.ts', cwd), { requireWrite: ['docs/'] }));
});

t.test('--tool and --deny-tool compare names as kinds are found: without case, _ or -', async (t) => {
  for (const [given, name] of [
    ['web_fetch', 'webFetch'],
    ['editFile', 'edit_file'],
    ['READ-FILE', 'read_file'],
  ]) {
    t.ok(violates(callOf('function', { url: 'x' }, '/home/u/p', name), { denyTool: [given!] }), `--deny-tool ${given} catches ${name}`);
    t.equal(runCore(callOf('function', { url: 'x' }, '/home/u/p', name), { tools: [given!] }).core.calls, 1, `--tool ${given} keeps ${name}`);
  }
  t.notOk(violates(callOf('function', { url: 'x' }, '/home/u/p', 'webfetcher'), { denyTool: ['web_fetch'] }));
  // The key a call is written under in the stream names its tool too.
  t.ok(violates(callOf('shellToolCall', { command: 'make' }), { denyTool: ['shellToolCall'] }), '--deny-tool shellToolCall');
  t.equal(runCore(callOf('readToolCall', { path: 'a' }), { tools: ['readToolCall'] }).core.calls, 1, '--tool readToolCall');
  t.notOk(violates(callOf('readToolCall', { path: 'a' }), { denyTool: ['toolCall'] }), 'ToolCall alone names no tool');
  // The report names the check as it was given.
  for (const [given, key, name] of [
    ['shell', 'ShellToolCall', undefined],
    ['SHELL', 'function', 'run_terminal_cmd'],
    ['run-terminal-cmd', 'function', 'run_terminal_cmd'],
  ] as const) {
    const v = runCore(callOf(key, { command: 'ls' }, '/home/u/p', name), { denyTool: ['read', given] }).violations;
    t.equal(v[0]?.pattern, given, `--deny-tool ${given} against ${name ?? key}`);
  }
  // A name the audit knows for a kind stands for that kind: Claude Code's Bash is Cursor's shellToolCall.
  for (const given of ['bash', 'Bash', 'run_terminal_cmd', 'sh', 'terminal']) {
    const v = runCore(callOf('shellToolCall', { command: 'make' }), { denyTool: [given] }).violations;
    t.same(
      v.map((x) => [x.check, x.pattern]),
      [['--deny-tool', given]],
      `--deny-tool ${given} catches a shellToolCall, named as given`,
    );
    t.equal(runCore(callOf('shellToolCall', { command: 'make' }), { tools: [given] }).core.calls, 1, `--tool ${given} keeps it`);
  }
  t.ok(violates(callOf('readToolCall', { path: 'a' }), { denyTool: ['read_file'] }), '--deny-tool read_file catches a readToolCall');
  t.ok(violates(callOf('deleteToolCall', { path: 'a' }), { denyTool: ['rm'] }), '--deny-tool rm catches a deleteToolCall');
  // A name it does not know stands for itself alone.
  t.notOk(violates(callOf('shellToolCall', { command: 'make' }), { denyTool: ['foo'] }));
  t.notOk(violates(callOf('readToolCall', { path: 'a' }), { denyTool: ['bash'] }), 'bash is no read');
});

t.test('a --deny-tool name that matched no call and is a few edits from a known one is reported as misspelt', async (t) => {
  const misspelt = (input: string, denyTool: string[]) => {
    const found: string[] = [];
    const core = new ToolsCore({ denyTool, onMisspeltDenyTool: (name, known) => found.push(`${name}>${known}`) });
    const reader = new EventReader({ record: (r) => core.record(r, () => {}), problem: () => {} }, { needs: (type) => core.needs(type) });
    reader.startSource('in');
    reader.write(Buffer.from(input));
    reader.endSource();
    core.end(() => {});
    return found;
  };
  const read = oneCall('read', 'a.txt', '/home/u/p');
  t.same(misspelt(read, ['writes', 'Shel', 'glb', 'web_fetch', 'mcp_github_create_pr', 'xyz', 'write', 'shell', 'other', 'rm']), ['writes>write', 'Shel>shell', 'glb>glob']);
  t.same(misspelt(read, ['writes', 'writes']), ['writes>write'], 'each name once');
  // A tool of that very name, used in the run, is no misspelling.
  t.same(misspelt(callOf('function', { path: 'a' }, '/home/u/p', 'writes'), ['writes']), []);
  t.same(misspelt(callOf('function', { path: 'a' }, '/home/u/p', 'reads'), ['writes']), ['writes>write'], 'another tool near it is no match');
});

t.test('shell calls by other names, and commands given as words', async (t) => {
  for (const name of [
    'execute_command',
    'run_shell_command',
    'execute_bash',
    'shell_exec',
    'local_shell',
    'exec_command',
    'run_in_terminal',
    'sh',
    'powershell',
    'cmd',
    'container.exec',
    'shell_command',
    'bash_command',
    'terminal_command',
    'run_bash',
    'exec_shell',
  ]) {
    const call = callOf('function', { command: 'cat .env' }, '/home/u/p', name);
    t.ok(violates(call, { denyTool: ['shell'] }), `${name} is a shell call`);
    t.equal(records(runCore(call).out)[0]!.command, 'cat .env');
  }
  // A tool of a name not known, given a command, may run it: --deny-tool shell (and --tool shell) count it, and its paths are still checked.
  t.ok(violates(callOf('function', { command: 'cat .env' }, '/home/u/p', 'do_it'), { denyTool: ['shell'] }), 'an unknown tool given a command');
  t.ok(violates(callOf('function', { cmd: 'ls' }, '/home/u/p', 'do_it'), { denyTool: ['shell'] }), 'or given as cmd');
  t.notOk(violates(callOf('function', { query: 'x' }, '/home/u/p', 'do_it'), { denyTool: ['shell'] }), 'nor without a command');
  t.notOk(violates(callOf('function', { command: 'x' }, '/home/u/p', 'read_file'), { denyTool: ['shell'] }), 'a tool of a known kind keeps it');
  const editor = callOf('function', { command: 'create', path: '.github/workflows/ci.yml', file_text: 'x' }, '/home/u/p', 'str_replace_based_edit_tool');
  t.same(records(runCore(editor).out)[0]!.kind, 'other');
  t.ok(violates(editor, { denyWrite: ['.github/**'] }), 'an editor whose command is a verb: its path is still checked');
  t.equal(runCore(callOf('function', { command: 'ls' }, '/home/u/p', 'do_it'), { tools: ['shell'] }).core.calls, 1, '--tool shell keeps it');
  const deny = runCore(callOf('function', { command: 'ls' }, '/home/u/p', 'do_it'), { denyTool: ['Shell'] }).violations;
  t.equal(deny[0]?.pattern, 'Shell', 'named as the check was given');
  // Completed with args that hold no command, it still may have run the one it started with.
  const started = JSON.stringify({ type: 'tool_call', subtype: 'started', call_id: 'c', session_id: 's', tool_call: { frobnicateToolCall: { args: { command: 'rm -rf /' } } } });
  for (const args of [undefined, {}]) {
    const done = JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: 'c', session_id: 's', tool_call: { frobnicateToolCall: { ...(args ? { args } : {}), result: { success: {} } } } });
    t.ok(violates(`${started}\n${done}\n`, { denyTool: ['shell'] }), `completed with ${args ? 'empty args' : 'no args'}`);
  }
  const words = callOf('shellToolCall', { command: ['bash', '-lc', 'cat .env'] });
  t.equal(records(runCore(words).out)[0]!.command, 'bash -lc cat .env', 'a command given as its words');
  t.match(runCore(words, { summary: true }).out, /bash -lc cat \.env/, 'and listed by --summary');
});

t.test('a call started again, or completed, with other arguments: every path it was given counts', async (t) => {
  const e = (subtype: string, p: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ type: 'tool_call', subtype, call_id: 'x', session_id: 's', tool_call: { readToolCall: { args: { path: p }, ...extra } } });
  const init = JSON.stringify({ type: 'system', subtype: 'init', session_id: 's', cwd: '/p' });
  const restarted = [init, e('started', '.env'), e('started', 'README.md'), e('completed', 'README.md', { result: { success: {} } })].join('\n') + '\n';
  t.ok(violates(restarted, { denyRead: ['.env'] }), 'started again with other arguments');
  t.same(records(runCore(restarted).out)[0]!.read, ['README.md', '.env']);
  const changed = [init, e('started', '.env'), e('completed', 'README.md', { result: { success: {} } })].join('\n') + '\n';
  t.ok(violates(changed, { denyRead: ['.env'] }), 'completed with other arguments');
  const same = [init, e('started', 'a.ts'), e('completed', 'a.ts', { result: { success: {} } })].join('\n') + '\n';
  t.same(records(runCore(same).out)[0]!.read, ['a.ts'], 'the same arguments: one path');
  // A shell call completed with empty args keeps the command it started with; one completed with its own keeps that.
  const sh = (subtype: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ type: 'tool_call', subtype, call_id: 'y', session_id: 's', tool_call: { shellToolCall: { args, ...extra } } });
  const emptied = [init, sh('started', { command: 'rm -rf build' }), sh('completed', {}, { result: { success: { exitCode: 0 } } })].join('\n') + '\n';
  t.equal(records(runCore(emptied).out)[0]!.command, 'rm -rf build');
  t.match(runCore(emptied, { summary: true }).out, /^ {2}\$ rm -rf build {2}\(exit 0\)$/m, 'and --summary lists it');
  const own = [init, sh('started', { command: 'make' }), sh('completed', { command: 'make test' }, { result: { success: {} } })].join('\n') + '\n';
  t.equal(records(runCore(own).out)[0]!.command, 'make test');
});

t.test('a call that changes or reads files by its kind, with no path the audit can read, fails the checks that ask which files', async (t) => {
  const noPath = callOf('editToolCall', { streamContent: 'x' });
  const { violations } = runCore(noPath, { noWrites: true, denyWrite: ['.github/**'] });
  t.same(
    violations.map((v) => [v.check, v.noPath]),
    [
      ['--no-writes', true],
      ['--deny-write', true],
    ],
  );
  t.match(formatViolation(violations[0]!), /--no-writes: edit, which names no path the audit can read \(call c, success\)$/);
  t.ok(violates(callOf('readToolCall', { offset: 3 }), { denyRead: ['**/.env'] }), 'a read of no known path');
  t.notOk(violates(callOf('readToolCall', { offset: 3 }), { denyWrite: ['**'] }), 'a read is no write');
  t.notOk(violates(noPath, { denyRead: ['**'] }), 'an edit is no read');
  t.notOk(violates(callOf('grepToolCall', { pattern: 'x' }), { denyRead: ['**/.env'], noWrites: true }), 'a search that names no path (the whole project) fails no check: it would fail every one');
  // But one that denies the project itself, as a search of `.` does.
  for (const [key, args] of [
    ['grepToolCall', { pattern: 'x' }],
    ['globToolCall', { globPattern: '*.ts' }],
    ['lsToolCall', {}],
  ] as const) {
    for (const glob of ['./', './**', '.', '**']) {
      t.ok(violates(callOf(key, args), { denyRead: [glob] }), `${key} of no path, --deny-read ${glob}`);
      t.equal(violates(callOf(key, args), { denyRead: [glob] }), violates(callOf(key, { ...args, path: '.' }), { denyRead: [glob] }), `${key} of no path is checked as of .`);
    }
    t.notOk(violates(callOf(key, args), { denyRead: ['src/**'] }), `${key} of no path, --deny-read src/**`);
  }
  t.notOk(violates(callOf('shellToolCall', { command: 'ls' }), { noWrites: true }), 'a shell call names no path, and is no write of its own');
  // A tool of unknown kind that names a path may write it: --no-writes fails as --deny-write '**' does.
  t.ok(violates(callOf('frobnicateToolCall', { path: 'assets/logo.svg' }), { noWrites: true }));
});

t.test('paths the audit finds in more places: an apply_patch text, an MCP call\'s own arguments, more argument names', async (t) => {
  const patch = '*** Begin Patch\n*** Update File: .github/workflows/ci.yml\n@@\n-a\n+b\n*** Add File: new.txt\n+x\n*** Delete File: old.txt\n*** Update File: a.ts\n*** Move to: b.ts\n*** End Patch';
  const { out } = runCore(callOf('function', { input: patch }, '/home/u/p', 'apply_patch'));
  t.same(records(out)[0]!.edited, ['.github/workflows/ci.yml', 'new.txt', 'old.txt', 'a.ts', 'b.ts']);
  t.ok(violates(callOf('function', { input: patch }, '/home/u/p', 'apply_patch'), { denyWrite: ['.github/**'] }));
  t.ok(violates(callOf('mcpToolCall', { name: 'fs', toolName: 'read_file', providerIdentifier: 'fs', args: { path: '.env' } }), { denyRead: ['**/.env'] }), 'MCP args');
  t.ok(violates(callOf('mcpToolCall', { name: 'fs', toolName: 'read', args: { paths: ['a', '.env'] } }), { denyRead: ['**/.env'] }), 'MCP args: paths');
  // A move or rename changes both its paths, under the names movers give them.
  const move = callOf('mcpToolCall', { name: 'fs', toolName: 'move_file', args: { source: '/tmp/x.yml', destination: '.github/workflows/ci.yml' } });
  t.ok(violates(move, { denyWrite: ['.github/**'] }), 'MCP move_file: its destination');
  t.same(records(runCore(move).out)[0]!.touched, ['/tmp/x.yml', '.github/workflows/ci.yml']);
  // A delete on an MCP server deletes what is under the directory it names, as the agent's own delete does.
  for (const [toolName, p, glob] of [
    ['delete_file', '/', '/etc/**'],
    ['delete_file', '.', '**/.env'],
    ['delete_file', '.', 'src/**'],
    ['delete_directory', '.github', '.github/workflows/**'],
    ['rmdir', 'config', 'config/.env'],
  ]) {
    const mcpDelete = callOf('mcpToolCall', { name: 'fs', toolName, providerIdentifier: 'fs', args: { path: p } });
    t.ok(violates(mcpDelete, { denyWrite: [glob!] }), `MCP ${toolName} of ${p}: ${glob}`);
    t.same(records(runCore(mcpDelete).out)[0]!.touched, [p], 'its path, touched');
  }
  t.notOk(violates(callOf('mcpToolCall', { name: 'fs', toolName: 'list_directory', args: { path: '.' } }), { denyWrite: ['**/.env'] }), 'an MCP tool of another kind, on the project');
  t.notOk(violates(callOf('mcpToolCall', { name: 'fs', toolName: 'delete_file', args: { path: 'src' } }), { denyWrite: ['**/.env'] }), 'a directory not known to hold one');
  // So do the agent's own tools of a directory's delete.
  for (const name of ['rmdir', 'delete_directory', 'remove_directory', 'delete_dir', 'remove_dir', 'delete_folder', 'remove_folder']) {
    const own = callOf('function', { path: '.github' }, '/home/u/p', name);
    t.ok(violates(own, { denyWrite: ['.github/workflows/**'] }), `${name} of .github`);
    t.same(records(runCore(own).out)[0]!.deleted, ['.github'], `${name} is a delete`);
  }
  const rename = callOf('function', { from: '.github/workflows/ci.yml', to: 'old.yml' }, '/home/u/p', 'rename_file');
  t.ok(violates(rename, { denyWrite: ['.github/**'] }), 'rename_file: its source');
  t.ok(violates(rename, { noWrites: true }), 'a rename is a write');
  t.same(records(runCore(rename).out)[0]!.written, ['.github/workflows/ci.yml', 'old.yml']);
  t.notOk(violates(callOf('function', { from: 'a', to: '.github/x' }, '/home/u/p', 'send_mail'), { denyWrite: ['.github/**'] }), 'from and to of another tool are no paths');
  for (const key of ['filepath', 'notebook_path', 'notebookPath', 'oldPath', 'newPath', 'old_path', 'new_path']) {
    t.ok(violates(callOf('function', { [key]: '.env' }, '/home/u/p', 'read_file'), { denyRead: ['**/.env'] }), key);
  }
});

t.test('arguments that are not JSON: the checks cannot clear the call, whatever paths were picked out of them', async (t) => {
  /** A completed `function` call of `name` whose `arguments` text is `text`, as written. */
  const rawCall = (name: string, text: string): string => callOf('function', {}, '/r', name).replace('"arguments":"{}"', `"arguments":${JSON.stringify(text)}`);
  const patch = '*** Begin Patch\n*** Add File: .github/workflows/x.yml\n+on: push\n*** End Patch';
  // A patch under `input` in arguments cut short: the `path` picked out is not all the call names.
  const cut = rawCall('apply_patch', `{"path":"README.md","input":${JSON.stringify(patch)}`);
  const cutRun = runCore(cut, { denyWrite: ['.github'] });
  t.equal(cutRun.violations.length, 1, 'apply_patch, arguments not JSON: --deny-write .github fails');
  t.match(formatViolation(cutRun.violations[0]!), /--deny-write '\.github': apply_patch, whose arguments are not JSON: the audit cannot read all the paths they name \(call c, success\)$/);
  t.match(records(runCore(cut).out)[0], { args_error: 'not JSON', edited: ['README.md'] }, 'the record: what was picked out');
  t.equal(runCore(cut, { noWrites: true }).violations.length, 1, '--no-writes: one line');
  // The same arguments whole: the patch's files are read, and the check is of them.
  const whole = rawCall('apply_patch', `{"path":"README.md","input":${JSON.stringify(patch)}}`);
  t.ok(violates(whole, { denyWrite: ['.github'] }), 'whole: its patch writes .github');
  t.notOk(violates(whole, { denyWrite: ['docs'] }), 'whole: not docs');
  t.ok(violates(cut, { denyWrite: ['docs'] }), 'cut short: any glob, it may name more');
  // A patch as the arguments themselves, whose content names a path: the path picked out of its content is not all.
  t.ok(violates(rawCall('apply_patch', '*** Begin Patch\n*** Add File: .github/workflows/x.json\n+{"path": "README.md"}\n*** End Patch'), { denyWrite: ['.github/**'] }), 'a raw patch');
  // A read or a search: --deny-read; neither is a write.
  t.ok(violates(rawCall('read_file', '{"path":"README.md", "offset": 1'), { denyRead: ['**/.env'] }), 'a read, --deny-read');
  t.notOk(violates(rawCall('read_file', '{"path":"README.md", "offset": 1'), { denyWrite: ['**'], noWrites: true }), 'a read, no write check');
  t.ok(violates(rawCall('grep_search', '{"query":"KEY","include_pattern":"**/.env"'), { denyRead: ['**/.env'] }), 'a search, --deny-read');
  // Arguments that are JSON: as before.
  t.notOk(violates(rawCall('read_file', '{"path":"README.md"}'), { denyRead: ['**/.env'] }), 'JSON arguments, another file');
  // Arguments not JSON at the start, JSON at the completion: those it started with still count.
  const started = rawCall('apply_patch', `{"path":"README.md","input":${JSON.stringify(patch)}`)
    .replace('"subtype":"completed"', '"subtype":"started"')
    .replace(',"result":{"success":{}}', '');
  const completed = rawCall('apply_patch', '{"path":"README.md"}').split('\n')[1];
  t.ok(violates(`${started}${completed}\n`, { denyWrite: ['.github'] }), 'started with arguments not JSON, completed with JSON ones');
  t.notOk(violates(`${rawCall('apply_patch', '{"path":"README.md"}').replace('"subtype":"completed"', '"subtype":"started"')}${completed}\n`, { denyWrite: ['.github'] }), 'JSON arguments at both');
  // Not a tool of a kind not known, which may take free text; nor a shell, whose paths are none.
  t.notOk(violates(rawCall('web_search', 'just some words'), { denyRead: ['**/.env'], denyWrite: ['.github'] }), 'a tool of a kind not known');
  t.notOk(violates(rawCall('run_terminal_cmd', '{"command":"cat .env"'), { denyRead: ['**/.env'], denyWrite: ['.github'] }), 'a shell command: no path checks');
  // An MCP call's own arguments not JSON; and an MCP server's apply_patch edits the files of its patch.
  const mcp = (inner: Record<string, unknown>): string => callOf('mcpToolCall', { name: 'fs', providerIdentifier: 'fs', ...inner });
  t.ok(violates(mcp({ toolName: 'write_file', arguments: '{"path":"README.md","content":"x' }), { denyWrite: ['.github'] }), 'MCP write_file, arguments not JSON');
  t.notOk(violates(mcp({ toolName: 'write_file', arguments: '{"path":"README.md","content":"x"}' }), { denyWrite: ['.github'] }), 'MCP write_file, arguments JSON');
  const served = mcp({ toolName: 'apply_patch', args: { path: 'README.md', input: patch } });
  t.ok(violates(served, { denyWrite: ['.github'] }), 'MCP apply_patch: the files of its patch');
  t.same(records(runCore(served).out)[0]!.touched, ['README.md', '.github/workflows/x.yml']);
});

t.test('a grep limited by its own glob to a denied file reads it, whatever directory it searches', async (t) => {
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', path: '.', glob: '**/.env' }), { denyRead: ['**/.env'] }), 'glob **/.env in .');
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', glob: '.env' }), { denyRead: ['**/.env'] }), 'a glob without a slash, in the whole project');
  // Cursor's grep_search limits itself with include_pattern.
  t.ok(violates(callOf('function', { query: 'API_KEY', include_pattern: '*.env' }, '/home/u/p', 'grep_search'), { denyRead: ['**/.env'] }), 'include_pattern');
  // codebase_search names the directories it searches in target_directories; another tool's such key is none of its paths.
  t.ok(violates(callOf('function', { query: 'x', target_directories: ['secrets'] }, '/home/u/p', 'codebase_search'), { denyRead: ['secrets/**'] }), 'target_directories');
  t.notOk(violates(callOf('function', { query: 'x', target_directories: ['secrets'] }, '/home/u/p', 'web_search'), { noWrites: true }), 'target_directories of another tool');
  // A glob into a directory searches it; one of file names alone searches no more than its directory.
  t.ok(violates(callOf('globToolCall', { targetDirectory: '.', globPattern: 'secrets/**' }), { denyRead: ['secrets/**'] }), 'a glob into a denied directory');
  t.ok(violates(callOf('globToolCall', { globPattern: 'config/keys/*.pem' }), { denyRead: ['config/keys/'] }), 'a glob into a denied directory, no directory named');
  t.ok(violates(callOf('globToolCall', { targetDirectory: '/home/u/p/app', globPattern: 'secrets/*' }), { denyRead: ['app/secrets/**'] }), 'under the directory searched');
  t.notOk(violates(callOf('globToolCall', { targetDirectory: '.', globPattern: 'src/**/*.ts' }), { denyRead: ['**/.env', 'secrets/**'] }), 'a glob into another directory');
  t.notOk(violates(callOf('globToolCall', { targetDirectory: '.', globPattern: '**/*.env' }), { denyRead: ['**/.env'] }), 'a glob lists names, it reads no file');
  // A glob without a slash names the file in the directory searched too, as ripgrep reads it.
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', path: 'config', glob: 'secrets.yml' }), { denyRead: ['config/secrets.yml'] }), 'a file name, in the directory searched');
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', path: '.', glob: '.env' }, '/home/u/p'), { denyRead: ['/home/u/p/.env'] }), 'a file name, in the project, an absolute glob');
  t.notOk(violates(callOf('grepToolCall', { pattern: 'KEY', path: 'config', glob: 'secrets.yml' }), { denyRead: ['secrets.yml/x', 'other/secrets.yml'] }), 'a file name, not in another directory');
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', path: 'secrets', include: '*.pem' }), { denyRead: ['secrets/**'] }), 'include, in a denied directory');
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', path: '.', glob: 'secrets/*.pem' }), { denyRead: ['secrets/**'] }), 'a glob into a denied directory');
  t.notOk(violates(callOf('grepToolCall', { pattern: 'KEY', path: 'src', glob: '*.ts' }), { denyRead: ['**/.env', 'secrets/**'] }), 'a glob of other files');
  t.notOk(violates(callOf('grepToolCall', { pattern: 'KEY', glob: '**/.env' }), { denyWrite: ['**/.env'] }), 'a search is no write');
  t.match(formatViolation(runCore(callOf('grepToolCall', { pattern: 'KEY', path: '.', glob: '**/.env' }), { denyRead: ['**/.env'] }).violations[0]!), /--deny-read '\*\*\/\.env': grep \.\/\*\*\/\.env \(call c, success\)$/);

  // The glob's file name against a deny glob's plain file name: `*.env` reads every `.env`.
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', path: '.', glob: '*.env' }), { denyRead: ['**/.env'] }), '*.env reads .env');
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', path: 'config', include: '*.{env,json}' }), { denyRead: ['config/credentials.json'] }), 'a brace glob, under a denied file');
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', glob: 'id_*' }), { denyRead: ['ID_RSA'] }), 'a denied name in any directory, any case');
  t.notOk(violates(callOf('grepToolCall', { pattern: 'KEY', path: '.', glob: '*.ts' }), { denyRead: ['**/.env'] }), '*.ts does not read .env');
  t.notOk(violates(callOf('grepToolCall', { pattern: 'KEY', path: 'src', glob: '*.env' }), { denyRead: ['config/.env'] }), 'a search of another directory');
  const named = runCore(callOf('grepToolCall', { pattern: 'KEY', path: '.', glob: '*.env' }), { denyRead: ['**/.env'] }).violations;
  t.equal(named.length, 1, 'one line for the glob');
  t.match(formatViolation(named[0]!), /--deny-read '\*\*\/\.env': grep \.\/\*\*\/\.env \(call c, success\)$/);
});

t.test('review fixes: a glob\'s `.` parts, lists of paths and globs, a `**` standing for no directory, braces of a glob tool, moves and copies of one path', async (t) => {
  // A deny glob with a `.` part names what it names without it, as the paths it meets are read.
  for (const glob of ['/home/u/p/./secrets', 'secrets/./', 'secrets/.', './/secrets', 'secrets/./k.pem']) {
    t.ok(violates(oneCall('read', 'secrets/k.pem', '/home/u/p'), { denyRead: [glob] }), `--deny-read ${glob}`);
  }
  t.ok(violates(oneCall('write', 'src/a.ts', '/home/u/p'), { denyWrite: ['/home/u/p/.'] }), '--deny-write /home/u/p/.: the project');
  t.notOk(violates(oneCall('read', 'src/a.ts', '/home/u/p'), { denyRead: ['secrets/.'] }), 'another directory');
  t.notOk(violates(oneCall('write', 'CHANGELOG.md', '/home/u/p'), { requireWrite: ['/home/u/p/./CHANGELOG.md'] }), 'a required write with a `.` part is met');
  t.notOk(violates(oneCall('write', 'CHANGELOG.md', '/home/u/p'), { requireWrite: ['.//CHANGELOG.md'] }), 'nor is `.//` a root');
  // A key may name a list of paths; a grep's glob may be a list too.
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', path: ['src', 'secrets/prod.pem'] }), { denyRead: ['secrets/**'] }), 'a grep of a list of paths');
  t.ok(violates(callOf('readToolCall', { path: ['README.md', '.env'] }), { denyRead: ['**/.env'] }), 'a read of a list of paths');
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', glob: ['*.ts', '*.pem'] }), { denyRead: ['*.pem'] }), 'a list of globs');
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', path: ['src', 'config'], glob: 'secrets.yml' }), { denyRead: ['config/secrets.yml'] }), 'a glob in each directory of a list');
  t.notOk(violates(callOf('grepToolCall', { pattern: 'KEY', path: ['src', 'lib'], glob: ['*.ts'] }), { denyRead: ['secrets/**', '**/.env'] }), 'lists of other files');
  // A grep's `**` may stand for no directory: the directory searched is one it stands for.
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', glob: '**/secrets/**' }), { denyRead: ['secrets/**'] }), '**/secrets/** reads secrets/**');
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', glob: '**/secrets/*.pem' }), { denyRead: ['secrets/**'] }), '**/secrets/*.pem');
  t.ok(violates(callOf('grepToolCall', { pattern: 'KEY', path: 'config', glob: '**/**/keys/*' }), { denyRead: ['config/keys/'] }), 'two of them');
  t.notOk(violates(callOf('grepToolCall', { pattern: 'KEY', glob: '**/docs/**' }), { denyRead: ['secrets/**'] }), '**/docs/** does not read secrets');
  // A glob tool's pattern with braces searches the directory of each alternative.
  t.ok(violates(callOf('globToolCall', { globPattern: '{secrets,docs}/*' }), { denyRead: ['secrets/**'] }), 'a glob tool of {secrets,docs}/*');
  t.notOk(violates(callOf('globToolCall', { globPattern: '{src,docs}/*.md' }), { denyRead: ['secrets/**'] }), 'of other directories');
  t.same(records(runCore(callOf('globToolCall', { targetDirectory: '.', globPattern: '{secrets,docs}/*' })).out)[0]!.searched, ['.', './secrets', './docs']);
  // A copy's or a move's paths under the keys such tools name them with; one of which the audit reads one path only, or none, fails the write checks.
  const fn = (name: string, args: Record<string, unknown>) => callOf('function', args, '/home/u/p', name);
  t.ok(violates(fn('copy_file', { from_path: 'a', to_path: '.github/workflows/ci.yml' }), { denyWrite: ['.github/**'] }), 'copy_file from_path to_path');
  t.ok(violates(fn('move_file', { source: 'a', target: '.github/workflows/ci.yml' }), { denyWrite: ['.github/**'] }), 'move_file target');
  t.ok(violates(fn('cp', { src: 'a', dst: '.github/ci.yml' }), { denyWrite: ['.github/**'] }), 'cp dst');
  const one = runCore(fn('cp', { source: 'a', into: '.github/ci.yml' }), { denyWrite: ['.github/**'], denyRead: ['**/.env'] }).violations;
  t.same(one.map((v) => [v.check, v.onePath]), [['--deny-write', true], ['--deny-read', true]], 'a copy of one path: where it writes, or reads, is not known');
  t.match(formatViolation(one[0]!), /--deny-write '\.github\/\*\*': cp a, a move or copy whose other path the audit cannot read \(call c, success\)$/);
  t.same(runCore(fn('mv', { source: 'a', into: 'b' }), { denyWrite: ['.github/**'] }).violations.map((v) => [v.check, v.onePath]), [['--deny-write', true]], 'a move of one path');
  t.same(runCore(fn('copy_file', { what: 'a', where: 'b' }), { noWrites: true, denyRead: ['x'] }).violations.map((v) => [v.check, v.noPath]), [['--no-writes', true], ['--deny-read', true]], 'a copy of no path');
  t.same(runCore(fn('copy_file', { source: 'a', destination: 'b' }), { denyWrite: ['.github/**'], denyRead: ['**/.env'] }).violations, [], 'a copy of two other paths passes');
  // A rename given the new name: the file is put beside where it was.
  const renamed = runCore(fn('rename_file', { path: 'src/a.ts', new_name: 'b.ts' }), { denyWrite: ['.github/**'], requireWrite: ['src/b.ts'] });
  t.same(renamed.violations, [], 'a rename of src/a.ts to b.ts writes src/b.ts');
  t.same(records(renamed.out)[0]!.written, ['src/a.ts', 'src/b.ts']);
  t.ok(violates(fn('rename_file', { path: '.github/ci.yml', new_name: 'off.yml' }), { denyWrite: ['.github/**'] }), 'a rename in a denied directory');
  // A `copy` that names no file may copy none: text to a clipboard.
  t.same(runCore(fn('copy', { text: 'hello' }), { denyWrite: ['**'], denyRead: ['**/.env'], noWrites: true }).violations, [], 'a copy of text');
});

t.test('a key a function call\'s arguments give twice in one object: each of its values counts', async (t) => {
  const init = JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 's' });
  const fn = (name: string, args: string) =>
    [init, JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: 'c', tool_call: { function: { name, arguments: args } }, session_id: 's' })].join('\n');
  // JSON.parse keeps the last; the tool called may keep the first.
  const twice = fn('read_file', '{"target_file":".env","target_file":"README.md"}');
  t.same(runCore(twice, { denyRead: ['**/.env'] }).violations.map((v) => v.path), ['.env']);
  t.same(records(runCore(twice).out)[0]!.read, ['README.md', '.env']);
  // An escaped spelling of the key is the same key.
  t.same(runCore(fn('read_file', '{"target_file":".env","target_\\u0066ile":"README.md"}'), { denyRead: ['**/.env'] }).violations.length, 1, 'a key spelt with an escape');
  // In a nested object too; the same key in two objects of a list is no key given twice.
  t.same(runCore(fn('edit_files', '{"edits":[{"path":".github/ci.yml","path":"src/a.ts"}]}'), { denyWrite: ['.github/**'] }).violations.length, 1, 'nested');
  const list = fn('edit_files', '{"edits":[{"path":"src/a.ts"},{"path":"src/b.ts"}]}');
  t.same(records(runCore(list).out)[0]!.edited, ['src/a.ts', 'src/b.ts']);
  t.same(runCore(list, { denyWrite: ['.github/**'] }).violations, [], 'a key in two objects of a list');
  // A command given twice: the one JSON.parse keeps is recorded, and both count.
  const shell = records(runCore(fn('run_terminal_cmd', '{"command":"ls","command":"make","cwd":"/p"}')).out)[0]!;
  t.equal(shell.command, 'make');
  // Keys no object may hold as its own otherwise are read as JSON.parse reads them.
  const proto = fn('read_file', '{"__proto__":{"x":1},"target_file":"a","target_file":".env"}');
  t.same(records(runCore(proto).out)[0]!.read, ['.env', 'a']);
  t.equal(({} as Record<string, unknown>).x, undefined, 'no prototype touched');
});

t.test('the review of those fixes: in linear time, no false alarm on a long glob call, a key given twice read however deep', async (t) => {
  const init = JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 's' });
  const fnCall = (name: string, args: string) =>
    [init, JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: 'c', tool_call: { function: { name, arguments: args } }, session_id: 's' })].join('\n');
  // A write of a JSON file: its content holds a quote escaped every few bytes. Each string of the arguments is found once.
  const data = JSON.stringify(Object.fromEntries(Array.from({ length: 20000 }, (_, k) => [`key${k}`, `value ${k}`])), null, 2);
  let t0 = performance.now();
  const write = runCore(fnCall('write', JSON.stringify({ target_file: 'data.json', contents: data })), { denyWrite: ['**/.env'] });
  t.same(write.violations, []);
  // (A bound on what took 50 s when each string was searched again from each escaped quote: no measure of speed.)
  t.ok(performance.now() - t0 < 15000, `a write of ${data.length} bytes of JSON does not hang (${Math.round(performance.now() - t0)} ms)`);
  // A grep of many directories with many globs: at most as many filters as a glob's alternatives are tried.
  const dirs = Array.from({ length: 300 }, (_, k) => `d${k}`);
  const globs = Array.from({ length: 300 }, (_, k) => `g${k}`);
  t0 = performance.now();
  const many = runCore(callOf('grepToolCall', { pattern: 'x', path: dirs, glob: globs }), { denyRead: ['secrets/**'] });
  t.ok(performance.now() - t0 < 15000, `300 directories and 300 globs do not hang (${Math.round(performance.now() - t0)} ms)`);
  t.same(many.violations.map((v) => [v.check, v.globCut]), [['--deny-read', true]], 'past 1000 filters, the check cannot clear it');
  t.notOk(violates(callOf('grepToolCall', { pattern: 'x', path: dirs.slice(0, 10), glob: globs.slice(0, 10) }), { denyRead: ['secrets/**'] }), '100 filters are all tried');
  // A glob call's pattern with braces, long but of few alternatives: they are all known.
  const tests = `**/{${Array.from({ length: 70 }, (_, k) => `component${k}.test.tsx`).join(',')}}`;
  t.ok(tests.length > 1000);
  t.notOk(violates(callOf('globToolCall', { globPattern: tests, targetDirectory: 'src' }), { denyRead: ['**/.env'] }), `a glob call of ${tests.length} characters, 70 alternatives`);
  t.ok(violates(callOf('globToolCall', { globPattern: `{${Array.from({ length: 1001 }, (_, k) => `d${k}`).join(',')}}/*` }), { denyRead: ['**/.env'] }), 'one of more than 1000');
  // A key given twice in arguments nested deeper than the reader goes: the first value still counts.
  const deep = `{"target_file":".env","target_file":"README.md","x":${'['.repeat(20000)}${']'.repeat(20000)}}`;
  t.same(runCore(fnCall('read_file', deep), { denyRead: ['**/.env'] }).violations.map((v) => v.path), ['.env'], 'nested 20,000 deep');
});

t.test('a session whose cwd is a Windows path: backslashes separate, in its paths and its cwd', async (t) => {
  const cwd = 'C:\\proj';
  t.ok(violates(oneCall('read', 'C:\\proj\\secrets\\k.pem', cwd), { denyRead: ['secrets/**'] }), 'absolute path, relative glob');
  t.ok(violates(oneCall('read', 'src\\a.ts', cwd), { denyRead: ['C:/proj/src/**'] }), 'relative path, absolute glob');
  t.equal(resolvePath('src\\a.ts', cwd), 'C:/proj/src/a.ts');
  t.equal(resolvePath('..\\b\\c', '\\\\host\\share\\a'), '//host/share/b/c', 'a share keeps its two slashes');
  t.ok(samePath('.env', 'C:\\proj\\.env', cwd), 'a result\'s absolute path is the relative one the args named');
  t.equal(resolvePath('src\\a.ts', '/home/u/p'), '/home/u/p/src\\a.ts', 'in a POSIX session a backslash is part of a name');
  const { out } = runCore(oneCall('read', 'src\\a.ts', cwd), { absolute: true });
  t.same(records(out)[0]!.read, ['C:/proj/src/a.ts'], '--absolute');
  // A long-form path names the path after its prefix.
  t.ok(violates(oneCall('read', '\\\\?\\C:\\proj\\secrets\\k.pem', cwd), { denyRead: ['secrets/**'] }), 'a long-form path');
  t.ok(violates(oneCall('read', '//?/C:/proj/.env', '/home/u/p'), { denyRead: ['**/.env'] }), 'a long-form path with slashes, in any session');
  t.equal(resolvePath('\\\\?\\C:\\proj\\a.ts', cwd), 'C:/proj/a.ts');
  t.equal(shortForm('\\\\?\\UNC\\host\\share\\x'), '\\\\host\\share\\x');
  t.equal(shortForm('\\\\.\\C:\\x'), 'C:\\x');
  t.equal(shortForm('//?/'), '//?/', 'a prefix alone is no path');
  t.equal(shortForm('src/a.ts'), 'src/a.ts');
  const long = runCore(oneCall('read', '\\\\?\\C:\\proj\\secrets\\k', cwd), { paths: 'all', absolute: true }).out;
  t.equal(long, 'C:/proj/secrets/k\n', '--paths --absolute');
  // A path rooted without its drive is on the session's drive; `C:x` is `x` in the cwd, when C: is the session's drive.
  for (const p of ['\\proj\\.github\\x.yml', '/proj/.github/x.yml', 'C:.github\\x.yml', 'c:.github\\x.yml']) {
    t.ok(violates(oneCall('write', p, cwd), { denyWrite: ['.github/**'] }), `write ${p}`);
  }
  t.equal(resolvePath('\\proj\\a.ts', cwd), 'C:/proj/a.ts');
  t.equal(resolvePath('C:a.ts', cwd), 'C:/proj/a.ts');
  t.equal(resolvePath('D:a.ts', cwd), 'D:a.ts', "another drive's current directory is not known");
  t.equal(resolvePath('\\\\host\\share\\a', cwd), '//host/share/a', 'a share is no path on the drive');
  // A drive letter in either case names one drive; a deny glob's `../` form meets a path in any case.
  t.ok(violates(oneCall('read', 'c:\\proj\\secrets\\key', 'C:\\proj\\sub'), { denyRead: ['../secrets/**'] }), 'c: against C:');
  t.ok(violates(oneCall('read', '/Users/u/proj/secrets/k', '/Users/u/Proj/sub'), { denyRead: ['../secrets/**'] }), 'a directory in another case');
  t.notOk(violates(oneCall('write', 'c:\\proj\\CHANGELOG.md', cwd), { requireWrite: ['CHANGELOG.md'] }), 'a required write on c: in C:\\proj is met');
  t.equal(resolvePath('c:\\proj\\a.ts', 'c:\\proj'), 'C:/proj/a.ts');
  // A glob written as Windows writes paths: its backslashes separate, but before a character special in globs.
  const ci = oneCall('write', 'C:\\proj\\.github\\ci.yml', cwd);
  for (const glob of ['C:\\proj\\.github\\**', 'c:\\proj\\.github\\ci.yml', '.github\\**', '.github\\ci.yml', '**\\ci.yml']) {
    t.ok(violates(ci, { denyWrite: [glob] }), `--deny-write ${glob}`);
  }
  t.notOk(violates(ci, { requireWrite: ['.github\\ci.yml'] }), 'a required write spelt so is met');
  const wf = oneCall('write', 'C:\\proj\\.github\\workflows\\ci.yml', cwd);
  for (const glob of ['.github\\workflows\\*.yml', '.github\\workflows\\', '.github\\workflows\\**']) t.ok(violates(wf, { denyWrite: [glob] }), `--deny-write ${glob}`);
  // Read as minimatch reads it too: a backslash that escapes a plain character is that character.
  t.ok(violates(oneCall('read', '.env', '/home/u/p'), { denyRead: ['\\.env'] }), '\\.env is .env');
  t.ok(violates(oneCall('read', 'my file.txt', '/home/u/p'), { denyRead: ['my\\ file.txt'] }), 'an escaped space');
  t.ok(violates(oneCall('write', 'app/[id].tsx', '/home/u/p'), { denyWrite: ['app/\\[id\\].tsx'] }), 'an escaped bracket is a bracket');
});

t.test('a session whose cwd is on a share: the share is a root, as a drive is', async (t) => {
  const cwd = '\\\\fileserver\\projects\\app';
  // `..` stops at the share's root, as at a drive's; a path from the root is on the share.
  t.equal(resolvePath('..\\..\\..\\..\\secrets\\key.pem', cwd), '//fileserver/projects/secrets/key.pem');
  t.equal(resolvePath('..\\..', cwd), '//fileserver/projects/');
  t.equal(resolvePath('\\x\\y.txt', cwd), '//fileserver/projects/x/y.txt');
  t.equal(resolvePath('\\\\?\\UNC\\fileserver\\projects\\app\\a.ts', cwd), '//fileserver/projects/app/a.ts', 'a long-form share path');
  t.equal(normalizedForm('\\\\fileserver\\projects\\app\\src\\..\\README.md', cwd), '//fileserver/projects/app/README.md');
  t.ok(isRoot('//fileserver/projects/'), "a share's root is a root");
  // Checks: a glob from the share's root meets a path that climbs to it; relative globs and paths meet as on a drive.
  const climb = oneCall('read', '..\\..\\..\\..\\secrets\\key.pem', cwd);
  for (const glob of ['\\\\fileserver\\projects\\secrets\\**', '//fileserver/projects/secrets/**', '../secrets/**', '**/*.pem']) {
    t.ok(violates(climb, { denyRead: [glob] }), `--deny-read ${glob}`);
  }
  t.ok(violates(oneCall('read', '\\\\fileserver\\projects\\app\\secrets\\k', cwd), { denyRead: ['secrets/**'] }), 'an absolute path inside the cwd, a relative glob');
  t.ok(violates(oneCall('write', 'src\\a.ts', cwd), { denyWrite: ['\\\\fileserver\\projects\\app\\src\\**'] }), 'a relative path, a glob from the share');
  t.notOk(violates(oneCall('read', 'src\\a.ts', cwd), { denyRead: ['\\\\fileserver\\projects\\secrets\\**'] }), 'another directory of the share');
  t.notOk(violates(oneCall('write', 'CHANGELOG.md', cwd), { requireWrite: ['CHANGELOG.md'] }), 'a required write is met');
  t.ok(violates(oneCall('delete', '..\\..\\..', cwd), { denyWrite: ['src/**'] }), "deleting the share's root deletes what any glob names");
  const { out } = runCore(climb, { paths: 'all', absolute: true });
  t.equal(out, '//fileserver/projects/secrets/key.pem\n', '--paths --absolute');
  // In a POSIX session, `//` is `/`, as before.
  t.equal(resolvePath('//etc/passwd', '/home/u/p'), '/etc/passwd');
  t.ok(violates(oneCall('read', '//etc/passwd', '/home/u/p'), { denyRead: ['/etc/**'] }), '//etc/passwd is /etc/passwd');
});

t.test('--summary --json lists the paths no call touched successfully, with their status', async (t) => {
  const input = [oneCall('write', 'dist/a.js', '/p', 'error'), oneCall('write', '__proto__', '/p', 'error'), oneCall('read', 'a.txt', '/p')].join('');
  const summary = JSON.parse(runCore(input, { summary: true, json: true }).out);
  t.same(summary.written, ['dist/a.js', '__proto__']);
  t.same(Object.keys(summary.unsuccessful), ['written'], 'only the kinds that have such paths');
  t.same(Object.entries(summary.unsuccessful.written), [['dist/a.js', 'error'], ['__proto__', 'error']], 'a path named __proto__ is a key like any other');
});

t.test('required writes must be successful and exact', async (t) => {
  const cwd = '/home/u/p';
  t.notOk(violates(oneCall('write', './CHANGELOG.md', cwd), { requireWrite: ['CHANGELOG.md'] }));
  t.notOk(violates(oneCall('edit', '/home/u/p/docs//a.md', cwd), { requireWrite: ['docs/*.md'] }));
  t.ok(violates(oneCall('write', 'changelog.md', cwd), { requireWrite: ['CHANGELOG.md'] }), 'case counts');
  t.ok(violates(oneCall('write', 'CHANGELOG.md', cwd, 'error'), { requireWrite: ['CHANGELOG.md'] }), 'a failed write is no write');
  t.ok(violates(oneCall('write', 'sub/CHANGELOG.md', cwd), { requireWrite: ['CHANGELOG.md'] }), 'no basename matching');
  t.ok(violates(oneCall('delete', 'CHANGELOG.md', cwd), { requireWrite: ['CHANGELOG.md'] }), 'a delete is no write');
  t.ok(violates(oneCall('read', 'CHANGELOG.md', cwd), { requireWrite: ['CHANGELOG.md'] }));
  // A move writes where it puts the file, not where it takes it from; --deny-write still sees both.
  const move = (from: string, to: string) => callOf('function', { source: from, destination: to }, cwd, 'move_file');
  t.ok(violates(move('CHANGELOG.md', 'old/CHANGELOG.bak'), { requireWrite: ['CHANGELOG.md'] }), 'moved away is not written');
  t.notOk(violates(move('draft.md', 'CHANGELOG.md'), { requireWrite: ['CHANGELOG.md'] }), 'moved there is written');
  t.ok(violates(move('CHANGELOG.md', 'old/CHANGELOG.bak'), { denyWrite: ['CHANGELOG.md'] }), 'moving a file away changes it');
  const rename = (from: string, to: string) => callOf('renameToolCall', { oldPath: from, newPath: to }, cwd);
  t.ok(violates(rename('CHANGELOG.md', 'CHANGES.md'), { requireWrite: ['CHANGELOG.md'] }), 'renamed away is not written');
  t.notOk(violates(rename('CHANGES.md', 'CHANGELOG.md'), { requireWrite: ['CHANGELOG.md'] }), 'renamed to it is written');
});

t.test('the policy on its own', async (t) => {
  const p = new Policy({ denyTool: ['Shell'] });
  t.ok(p.active);
  t.notOk(new Policy({}).active);
  const { violations } = runCore(stream('tools-function.ndjson'), { denyTool: ['SHELL'] });
  t.same(violations.map((v) => v.call?.tool), ['run_terminal_cmd'], 'deny-tool matches the kind, any case');
});

t.test('output does not depend on how the input is chunked', async (t) => {
  for (const name of ['tools-kinds.ndjson', 'tools-doc-example.ndjson', 'tools-parallel.ndjson', 'tools-died.ndjson', 'tools-hostile.ndjson']) {
    const input = stream(name);
    for (const options of [{}, { summary: true }, { paths: 'all' as const, absolute: true }]) {
      const whole = runCore(input, options).out;
      for (const size of [1, 3, 7, 64]) t.equal(runCore(input, options, size).out, whole, `${name} ${JSON.stringify(options)} in ${size}-byte chunks`);
    }
  }
});

t.test('every tool_call event is accounted for in a record', async (t) => {
  for (const name of fs.readdirSync(STREAMS).filter((f) => f.endsWith('.ndjson'))) {
    const input = stream(name);
    let toolEvents = 0;
    const reader = new EventReader({ record: (r) => void (r.event.type === 'tool_call' && toolEvents++), problem: () => {} });
    reader.startSource(name);
    reader.write(input);
    reader.endSource();
    const recs = records(runCore(input).out);
    t.equal(recs.reduce((n, r) => n + (r.events as number), 0), toolEvents, name);
  }
});

t.test('pairing', async (t) => {
  const recs = records(runCore(stream('tools-parallel.ndjson')).out);
  t.same(recs.map((r) => r.call_id), ['call_par_C\nfc_6a7b8c', 'call_par_B\nfc_3d4e5f', 'call_par_A\nfc_0a1b2c', 'call_orphan'], 'in completion order');
  t.same(recs.map((r) => r.started), [true, true, true, false]);
  t.equal(recs[2]!.command, 'npm test', 'a completion without args takes them from its start');
  t.equal(recs[0]!.duration_ms, 100);
  // One clock for both ends: the tool's own times where both ends give them, else the events'.
  const timed = (start: object, done: object) =>
    [
      { type: 'tool_call', subtype: 'started', call_id: 'c', tool_call: { readToolCall: { args: { path: 'a' } }, ...start } },
      { type: 'tool_call', subtype: 'completed', call_id: 'c', tool_call: { readToolCall: { args: { path: 'a' }, result: { success: {} } }, ...done } },
    ]
      .map((e) => JSON.stringify({ ...e, timestamp_ms: e.subtype === 'started' ? 5000 : 9000 }))
      .join('\n');
  const span = (start: object, done: object) => records(runCore(timed(start, done)).out)[0]!.duration_ms;
  t.equal(span({ startedAtMs: 1000 }, {}), 4000, 'the start gives startedAtMs, the completion no completedAtMs: the events');
  t.equal(span({}, { completedAtMs: 2000 }), 4000, 'the completion gives completedAtMs, the start no startedAtMs: the events');
  t.equal(span({ startedAtMs: 1000 }, { completedAtMs: 1500 }), 500, 'both ends: the tool');
  t.equal(span({}, { startedAtMs: 1200, completedAtMs: 1500 }), 300, 'both on the completion: the tool');
  t.equal(span({}, {}), 4000, 'neither: the events');
  const died = records(runCore(stream('tools-died.ndjson')).out);
  t.same(died.map((r) => r.status), ['success', 'pending', 'pending'], 'pending calls come last');
  const sh = (subtype: string, command: string, id?: string, done = false) =>
    JSON.stringify({
      type: 'tool_call',
      subtype,
      ...(id === undefined ? {} : { call_id: id }),
      tool_call: { shellToolCall: { args: { command }, ...(done ? { result: { success: { exitCode: 0 } } } : {}) } },
      session_id: 's',
    });
  const init = JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 's' });
  // Without ids: a completion pairs with the call started with its arguments, else with the oldest.
  const anonymous = records(runCore([init, sh('started', './deploy.sh'), sh('started', 'ls'), sh('completed', 'ls', undefined, true)].join('\n') + '\n').out);
  t.same(anonymous.map((r) => [r.command, r.status]), [['ls', 'success'], ['./deploy.sh', 'pending']], 'no command lost');
  const oldest = records(runCore([init, sh('started', 'a'), sh('started', 'b'), sh('completed', 'c', undefined, true)].join('\n') + '\n').out);
  t.same(oldest.map((r) => [r.command, r.status, r.line]), [['c', 'success', 2], ['b', 'pending', 3]], 'else the oldest');
  // Many at once, completed in the reverse order, after runs of other sessions that died with calls pending: each
  // completion finds its start.
  const died2 = (i: number) => [JSON.stringify({ type: 'system', subtype: 'init', session_id: `d${i}` }), sh('started', 'x', 'c1').replace('"s"', `"d${i}"`)];
  const many = [...Array.from({ length: 300 }, (_, i) => died2(i)).flat(), init];
  for (let i = 0; i < 500; i++) many.push(sh('started', `cmd ${i}`));
  for (let i = 499; i >= 0; i--) many.push(sh('completed', `cmd ${i}`, undefined, true));
  const paired = records(runCore(many.join('\n') + '\n').out).filter((r) => r.session_id === 's');
  t.equal(paired.length, 500);
  t.ok(
    paired.every((r, i) => r.command === `cmd ${499 - i}` && r.line === 602 + 499 - i && r.status === 'success'),
    'each completion paired with the start of its command',
  );
  // A new run of the session: what the last one left pending never completes, and its ids may come again.
  const resumed = [init, sh('started', './deploy.sh', 'c1'), init, sh('started', 'ls', 'c1'), sh('completed', 'ls', 'c1', true)].join('\n') + '\n';
  const again = records(runCore(resumed).out);
  t.same(again.map((r) => [r.command, r.status, r.line]), [['./deploy.sh', 'pending', 2], ['ls', 'success', 4]]);
  t.ok(violates(resumed, { noPending: true }), '--no-pending fails');
});

t.test('records leave bulky payloads out unless --full', async (t) => {
  const plain = runCore(stream('tools-kinds.ndjson')).out;
  for (const bulky of ['fileText', 'streamContent', 'stdout', 'diffString', '"content"', 'First line']) t.notMatch(plain, bulky);
  const full = runCore(stream('tools-kinds.ndjson'), { full: true }).out;
  for (const bulky of ['fileText', 'streamContent', 'stdout', 'diffString']) t.match(full, bulky);
  const long = 'x'.repeat(5000);
  const input = oneCall('read', 'a', '/p').replace('"result":{"success":{}}', `"result":{"error":{"error":"${long}"}}`);
  t.equal((records(runCore(input).out)[0]!.reason as string).length, 1001, 'a long reason is cut');
  t.equal((records(runCore(input, { full: true }).out)[0]!.reason as string).length, 5000);
  // Cut where an emoji's two halves meet, the reason ends before the emoji: no half of it is left.
  const emoji = oneCall('read', 'a', '/p').replace('"result":{"success":{}}', `"result":{"error":{"error":"${'x'.repeat(999)}😀${long}"}}`);
  const out = runCore(emoji).out;
  t.equal(records(out)[0]!.reason, `${'x'.repeat(999)}…`, 'a character is not cut in two');
  t.notMatch(out, /\\ud83d/i, 'no lone surrogate is written');
});

// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]/;

t.test('nothing from the stream reaches a terminal raw', async (t) => {
  const input = stream('tools-hostile.ndjson');
  for (const args of [[], ['--summary'], ['--summary', '--json'], ['--paths'], ['--full'], ['--deny-tool', 'shell', '--no-pending', '--deny-read', '**']]) {
    const m = memoryIo(input);
    const code = await main(args, m.io);
    t.notMatch(m.stdout(), RAW_CONTROL, `stdout of ${args.join(' ')}`);
    t.notMatch(m.stderr(), RAW_CONTROL, `stderr of ${args.join(' ')}`);
    for (const line of m.stderr().split('\n').filter(Boolean)) t.match(line, /^ndjson-tools: /, 'one line per message');
    t.ok(code === 0 || code === 3);
  }
});

t.test('main: statuses and messages', async (t) => {
  let m = memoryIo(stream('tools-died.ndjson'));
  t.equal(await main(['--no-pending', '--summary'], m.io), 3);
  t.equal(m.stderr().split('\n').filter((l) => l.includes('--no-pending')).length, 2);
  t.match(m.stderr(), 'stdin:8: truncated: ');
  m = memoryIo(stream('tools-died.ndjson'));
  t.equal(await main(['--no-pending', '-q'], m.io), 3, '--quiet does not hide violations');
  t.notMatch(m.stderr(), 'stdin:8: truncated: ', '--quiet hides the warning about the line');
  t.match(m.stderr(), 'stdin:8: a tool call the audit cannot read (truncated): the checks cannot pass', 'not what it means to the checks');
  m = memoryIo('');
  t.equal(await main(['--nope'], m.io), 1);
  m = memoryIo('');
  t.equal(await main([path.join(STREAMS, 'no-such.ndjson')], m.io), 2);
  t.match(m.stderr(), /^ndjson-tools: .*no-such\.ndjson: No such file or directory\n$/);
  m = memoryIo('');
  t.equal(await main(['--paths', path.join(STREAMS, 'tools-doc-example.ndjson')], m.io), 0, '--paths alone does not swallow the file');
  t.equal(m.stdout(), 'README.md\nsummary.txt\n');
  m = memoryIo('');
  t.equal(await main(['--writes'], m.io), 1);
  m = memoryIo(stream('tools-kinds.ndjson'));
  t.equal(await main(['--status', 'SPAWNERROR', '--status', 'Rejected', '--summary'], m.io), 0, '--status in any case');
  t.match(m.stdout(), /^5 tool calls: 4 rejected, 1 spawnError\n/);
  m = memoryIo('');
  t.equal(await main(['--status', 'nope'], m.io), 1);
  t.equal(m.stderr().split('\n')[0], 'ndjson-tools: --status must be one of "success", "error", "rejected", "spawnError", "failure", "pending", "unknown", not "nope"');
  m = memoryIo(stream('tools-doc-example.ndjson'));
  t.equal(await main(['--no-writes', '--deny-write', 'x', '--deny-read', 'y'], m.io), 3);
  t.equal(m.stderr(), 'ndjson-tools: stdin:1: --no-writes: write summary.txt (call toolu_01WriteSummaryBbbbbbbbbb, success)\n');
});

t.test('a stream through tools()', async (t) => {
  const s = tools({ summary: true, json: true });
  const out: Buffer[] = [];
  s.on('data', (d: Buffer) => out.push(d));
  const done = new Promise((resolve) => s.on('end', resolve));
  const input = stream('tools-doc-example.ndjson');
  s.write(input.subarray(0, 100));
  s.end(input.subarray(100));
  await done;
  const summary = JSON.parse(Buffer.concat(out).toString());
  t.same(summary.written, ['summary.txt']);
  t.equal(s.core.calls, 2);
});

t.test('a closed stdout ends quietly', async (t) => {
  const stdout = new PassThrough();
  stdout.destroy();
  const m = memoryIo(stream('tools-kinds.ndjson'));
  const code = await main([], { ...m.io, stdout });
  t.equal(code, 0);
  t.equal(m.stderr(), '');
});

const visibleOptions = Object.entries(toolsOptions).filter(([, o]) => !('hidden' in o && o.hidden)).map(([name]) => name);

t.test('--help names every option and ends with examples', async (t) => {
  const help = await helpText(toolsSpec);
  for (const name of visibleOptions) t.match(help, `--${name}`, name);
  t.notMatch(help, /--writes\b/);
  t.match(help, "ndjson-tools --deny-read '**/.env' --no-pending < run.ndjson");
  t.ok(toolsSpec.examples.length >= 2 && toolsSpec.examples.length <= 3);
});

t.test('the man page documents every option, every record field and every check', async (t) => {
  const src = path.join(ROOT, 'man/src/ndjson-tools.1.md');
  const roff = path.join(ROOT, 'man/ndjson-tools.1');
  t.ok(fs.existsSync(roff), 'man/ndjson-tools.1 is built');
  const page = fs.readFileSync(src, 'utf8');
  t.notMatch(page, /^\|/m, 'no markdown tables');
  for (const name of visibleOptions) t.match(page, `--${name}`, `option --${name}`);
  const fields = new Set<string>();
  for (const name of ['tools-kinds.ndjson', 'tools-function.ndjson', 'tools-paths.ndjson', 'tools-siblings.ndjson', 'tools-parallel.ndjson', 'tools-subagent.ndjson']) {
    for (const r of records(runCore(stream(name), { full: true }).out)) for (const k of Object.keys(r)) fields.add(k);
  }
  t.ok(fields.size >= 30, `${fields.size} fields seen`);
  for (const f of fields) t.match(page, `\`${f}\``, `record field ${f}`);
  const summary = JSON.parse(runCore(stream('tools-kinds.ndjson'), { summary: true, json: true }).out);
  for (const k of Object.keys(summary)) t.match(page, `\`${k}\``, `summary field ${k}`);
  t.match(page, "ndjson-tools --deny-read '**/.env' --no-pending < run.ndjson");
  t.match(page, /EXIT STATUS/);
});

t.test('a tool call that names its tool beside its arguments is audited; one that names none fails the checks', async (t) => {
  const flat = JSON.stringify({ type: 'tool_call', subtype: 'started', call_id: 'c', tool_call: { name: 'write_file', args: { path: '.github/workflows/ci.yml' } } });
  const r = records(runCore(`${flat}\n`).out)[0]!;
  t.same([r.tool, r.kind, r.written], ['write_file', 'write', ['.github/workflows/ci.yml']]);
  t.ok(violates(`${flat}\n`, { denyWrite: ['.github/**'] }), '--deny-write sees its path');
  const withArguments = JSON.stringify({ type: 'tool_call', subtype: 'started', call_id: 'c', tool_call: { name: 'run_shell_command', arguments: '{"command":"make"}' } });
  t.equal(records(runCore(`${withArguments}\n`).out)[0]!.command, 'make', 'its arguments as a JSON string');
  const none = JSON.stringify({ type: 'tool_call', subtype: 'started', call_id: 'c', tool_call: { toolCallId: 'c' } });
  const checked = memoryIo(`${none}\n${none.replace('"c"', '"d"')}\n`);
  t.equal(await main(['--no-writes'], checked.io), 3, 'a check cannot pass a call it cannot see into');
  t.equal(checked.stderr(), 'ndjson-tools: stdin:1: a tool call that names no tool the audit can find is audited as kind other, with no paths: the checks cannot pass\n', 'said once');
  // A call whose start named its tool, completed by an event that names none, is no such call.
  const named = JSON.stringify({ type: 'tool_call', subtype: 'started', call_id: 'c', tool_call: { readToolCall: { args: { path: 'a.txt' } } } });
  const bare = JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: 'c', tool_call: {} });
  const paired = memoryIo(`${named}\n${bare}\n`);
  t.equal(await main(['--deny-read', '.env'], paired.io), 0);
  t.equal(paired.stderr(), '', 'nothing to say of it');
  const unchecked = memoryIo(`${none}\n`);
  t.equal(await main([], unchecked.io), 0, 'without a check, it is a note');
  t.match(unchecked.stderr(), /names no tool the audit can find is audited as kind other, with no paths\n$/);
});

t.test('tool_use blocks are audited however their name is written', async (t) => {
  const block = { type: 'text', id: 't1', name: 'Read', input: { file_path: '.env' } };
  const line = (type: string) => JSON.stringify({ type: 'assistant', message: { content: [block] }, session_id: 's' }).replace('"type":"text"', `"type":${type}`);
  for (const [name, spelled, noticed] of [
    ['plainly', '"tool_use"', true],
    ['with an escape', '"tool\\u005fuse"', true],
    ['every letter escaped', '"\\u0074\\u006f\\u006f\\u006c\\u005f\\u0075\\u0073\\u0065"', true],
    ['not at all', '"text"', false],
    ['with an escape, another name', '"tool\\u005fused"', false],
  ] as const) {
    const input = line(spelled);
    t.equal((JSON.parse(input) as { message: { content: Array<{ type: string }> } }).message.content[0]!.type === 'tool_use', noticed, `${name}: JSON.parse's reading`);
    const { out, violations } = runCore(input, { denyRead: ['.env'] });
    const records = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    t.same(
      records.map((r) => [r.call_id, r.tool, r.status, r.read]),
      noticed ? [['t1', 'Read', 'pending', ['.env']]] : [],
      `${name}: ${noticed ? 'audited' : 'no call'}`,
    );
    t.equal(violations.length, noticed ? 1 : 0, `${name}: ${noticed ? 'checked' : 'nothing to check'}`);
    // Cut short, the message is one the checks cannot clear when it may hold one (any escape may spell it).
    const cut = Buffer.from(input.slice(0, input.indexOf('"id"')));
    const unread = new ToolsCore({ denyWrite: ['**'] }).unreadCall({ source: 'in', line: 1, reason: 'truncated', excerpt: '', raw: cut });
    t.equal(unread, spelled !== '"text"', `${name}, cut short: ${spelled !== '"text"' ? 'fails' : 'passes'} the checks`);
  }
});

t.test('fields of the wrong type never stop the audit', async (t) => {
  const lines = stream('tools-kinds.ndjson').toString('utf8').split('\n').filter(Boolean);
  const odd: unknown[] = [null, 5, -1e308, 'x', [], [1, 'a'], {}, { a: { b: { c: [] } } }, true, '\u0000\u001b]52;c;x\u0007'];
  const mutations: Array<(e: any) => void> = [];
  for (const v of odd) {
    mutations.push((e) => (e.call_id = v));
    mutations.push((e) => (e.session_id = v));
    mutations.push((e) => (e.subtype = v));
    mutations.push((e) => (e.tool_call = v));
    mutations.push((e) => (e.timestamp_ms = v));
    mutations.push((e) => {
      const body = Object.values(e.tool_call ?? {})[0] as any;
      if (body) body.args = v;
    });
    mutations.push((e) => {
      const body = Object.values(e.tool_call ?? {})[0] as any;
      if (body?.args && typeof body.args === 'object') body.args.path = v;
      if (body?.args && typeof body.args === 'object') body.args.command = v;
    });
    mutations.push((e) => {
      const body = Object.values(e.tool_call ?? {})[0] as any;
      if (body && 'result' in body) body.result = v;
    });
    mutations.push((e) => {
      const body = Object.values(e.tool_call ?? {})[0] as any;
      if (body?.result && typeof body.result === 'object') for (const k of Object.keys(body.result)) body.result[k] = v;
    });
  }
  let runs = 0;
  for (const [i, mutate] of mutations.entries()) {
    const mutated = lines.map((line, n) => {
      const e = JSON.parse(line);
      if (e.type === 'tool_call' && n % 3 === i % 3) mutate(e);
      return JSON.stringify(e);
    });
    const input = `${mutated.join('\n')}\n`;
    const toolEvents = mutated.filter((l) => JSON.parse(l).type === 'tool_call').length;
    for (const options of [{}, { summary: true, json: true }, { paths: 'all' as const, absolute: true, denyRead: ['**'], denyWrite: ['**'], noPending: true, requireWrite: ['x'] }]) {
      let out: ReturnType<typeof runCore>;
      try {
        out = runCore(input, options);
      } catch (error) {
        t.fail(`mutation ${i} with ${JSON.stringify(options)} threw: ${(error as Error).message}`);
        continue;
      }
      runs++;
      if (Object.keys(options).length === 0) {
        const recs = records(out.out);
        if (recs.reduce((n, r) => n + (r.events as number), 0) !== toolEvents) t.fail(`mutation ${i}: tool_call events lost`);
      } else if ('summary' in options) {
        JSON.parse(out.out);
      }
      if (RAW_CONTROL.test(out.out.replace(/\n/g, ''))) t.fail(`mutation ${i}: raw control character in output`);
    }
  }
  t.equal(runs, mutations.length * 3, `${runs} mutated runs, none threw`);
});

t.test('review fixes: absolute paths outside a package cwd, `..` past a drive root, MCP shells, commands as words, negated globs', async (t) => {
  const init = (cwd: string) => JSON.stringify({ type: 'system', subtype: 'init', cwd, session_id: 's' });
  const call = (id: string, toolCall: unknown) => JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: id, tool_call: toolCall, session_id: 's' });
  const write = (id: string, p: string) => call(id, { writeToolCall: { args: { path: p }, result: { success: {} } } });
  const read = (id: string, p: string) => call(id, { readToolCall: { args: { path: p }, result: { success: {} } } });
  const denied = (input: string, options: PolicyOptions) => runCore(input, options).violations.map((v) => v.call.callId);

  // A deny glob relative to the project catches a path written absolute as well as one written `../../`, from a package's cwd.
  const pkg = [init('/repo/packages/app'), write('rel', '../../.github/workflows/ci.yml'), write('abs', '/repo/.github/workflows/ci.yml'), read('key', '/repo/secrets/prod.key')].join('\n');
  t.same(denied(pkg, { denyWrite: ['.github/**'], denyRead: ['secrets/**'] }), ['rel', 'abs', 'key']);
  t.ok(matchForms('/repo/.github/x.yml', '/repo/app', true).includes('.github/x.yml'));

  // Windows stops `..` at the drive's root: the drive stays.
  t.equal(resolvePath('..\\..\\..\\Windows\\System32\\hosts', 'C:\\proj\\sub'), 'C:/Windows/System32/hosts');
  t.equal(resolvePath('..\\..\\x', 'C:\\proj'), 'C:/x');
  t.equal(normalizePath('C:/a/../../x'), 'C:/x');
  const win = [init('C:\\proj\\sub'), write('hosts', '..\\..\\..\\Windows\\System32\\drivers\\etc\\hosts')].join('\n');
  t.same(denied(win, { denyWrite: ['C:\\Windows\\**'] }), ['hosts']);

  // An MCP server's shell runs its command: `--deny-tool shell` and its own name catch it, and the command is recorded.
  const mcp = [init('/p'), call('m1', { mcpToolCall: { args: { toolName: 'execute_command', providerIdentifier: 'desktop-commander', args: { command: 'git push --force' } }, result: { success: {} } } })].join('\n');
  t.same(denied(mcp, { denyTool: ['shell'] }), ['m1']);
  t.same(denied(mcp, { denyTool: ['execute_command'] }), ['m1']);
  t.same(denied(mcp, { denyTool: ['read_file'] }), []);
  t.equal(records(runCore(mcp).out)[0]!.command, 'git push --force');
  // A server's tool of another name given a command may run it: counted as a shell, its command not taken for one.
  const other = [init('/p'), call('m2', { mcpToolCall: { args: { toolName: 'editor', args: { command: 'create', path: 'a.ts' } }, result: { success: {} } } })].join('\n');
  t.same(denied(other, { denyTool: ['shell'] }), ['m2']);
  t.equal(records(runCore(other).out)[0]!.command, undefined);

  // A command given as its words under `cmd`, or under `commandLine` or `script`.
  for (const [args, command] of [
    [{ cmd: ['bash', '-lc', 'make deploy'] }, 'bash -lc make deploy'],
    [{ CommandLine: 'del /q build' }, 'del /q build'],
    [{ script: 'Remove-Item -Recurse build' }, 'Remove-Item -Recurse build'],
  ] as const) {
    const shell = [init('/p'), call('c', { function: { name: 'shell', arguments: JSON.stringify(args) } })].join('\n');
    t.equal(records(runCore(shell).out)[0]!.command, command, JSON.stringify(args));
  }
  // A tool of unknown name given `cmd` as words may run it.
  const unknown = [init('/p'), call('u', { function: { name: 'sandbox_run', arguments: JSON.stringify({ cmd: ['rm', '-rf', '/'] }) } })].join('\n');
  t.same(denied(unknown, { denyTool: ['shell'] }), ['u']);

  // A negated glob would match nothing here: a usage error, not a check that never fails.
  const mem = memoryIo('');
  t.equal(await main(['--deny-write', '!src/**'], mem.io), 1);
  t.match(mem.stderr(), /--deny-write takes no negated glob \('!src\/\*\*'\)/);
});

t.test('with a check asked for, a tool call the audit cannot read, or an input of no events, fails it', async (t) => {
  const initLine = JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 's' });
  const callLine = JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: 'c1', tool_call: { writeToolCall: { args: { path: '.github/x' }, result: { success: {} } } }, session_id: 's' });
  const runMain = async (argv: string[], input: Buffer | string) => {
    const m = memoryIo('');
    m.io.stdin = (await import('node:stream')).Readable.from([Buffer.from(input)]);
    const code = await main(argv, m.io);
    return { code, stderr: m.stderr() };
  };
  // A log written by Windows PowerShell 5.1's `>`: UTF-16, every line "not JSON".
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${initLine}\n${callLine}\n`, 'utf16le')]);
  const u = await runMain(['-q', '--deny-write', '.github/**', '--no-pending'], utf16);
  t.equal(u.code, 3);
  // Its tool call lines are calls the audit cannot read, read with their zero bytes left out.
  t.match(u.stderr, /^ndjson-tools: stdin:2: a tool call the audit cannot read \(not JSON\): the checks cannot pass\nndjson-tools: the input held no events that could be read: nothing was audited, the checks cannot pass\n$/);
  t.equal((await runMain([], utf16)).code, 0, 'no check asked for: nothing fails');
  // A started write cut short (the agent died mid-write): it fails --no-pending and --deny-write, even under -q.
  const cut = `${initLine}\n${callLine.slice(0, 90)}`;
  for (const check of [['--no-pending'], ['--deny-write', '.github/**'], ['-q', '--deny-write', 'other/**']]) {
    const r = await runMain(check, cut);
    t.equal(r.code, 3, check.join(' '));
    t.match(r.stderr, /stdin:2: a tool call the audit cannot read \(truncated\): the checks cannot pass\n$/, check.join(' '));
  }
  t.equal((await runMain([], cut)).code, 0, 'no check asked for: nothing fails');
  // Its bytes name a write: --tool leaves it out as it would a write read whole, or keeps it.
  t.equal((await runMain(['--tool', 'read', '--no-pending'], cut)).code, 0, '--tool read');
  t.equal((await runMain(['--tool', 'write', '--no-pending'], cut)).code, 3, '--tool write');
  // Spelt with escapes, which JSON.parse reads as the letters they spell; behind noise; or an event written over several
  // lines, each read as one (the first as a complete event of another type, so the others are noise), its type on one
  // and its tool on another: each is a tool call the audit cannot read.
  const spelt = `${initLine}\n${callLine.replace('"type":"tool_call"', '"type":"tool\\u005fcall"').replace('"tool_call":{', '"tool_c\\u0061ll":{').slice(0, 120)}`;
  const glued = `${initLine}\nUpdate available: 1.2${callLine.replace('"type"', '"typ\\u0065"').replace('"tool_call":{', '"tool\\u005fcall":{')}\n`;
  const split = `${initLine}\n{"type":"thinking","a":{"b":1}\n,"type"\n:"tool_call","subtype":"completed","call_id":"c1","tool_call"\n:{"writeToolCall":{"args":{"path":".github/x"},"result":{"success":{}}}},"session_id":"s"}\n`;
  for (const [what, input] of [['spelt with escapes, cut short', spelt], ['spelt with escapes, behind noise', glued], ['over several lines', split]]) {
    const r = await runMain(['--deny-write', '.github/**'], input!);
    t.equal(r.code, 3, what!);
    t.match(r.stderr, /a tool call the audit cannot read \((truncated|not JSON)\): the checks cannot pass\n/, what!);
  }
  // A line of noise is no tool call: the checks pass.
  t.equal((await runMain(['--no-pending'], `Update available\n${initLine}\n`)).code, 0);
  // Empty input: nothing audited.
  const empty = await runMain(['--no-pending'], '');
  t.equal(empty.code, 3);
  t.equal(empty.stderr, 'ndjson-tools: the input held no events: nothing was audited, the checks cannot pass\n');
});

t.test('a copy touches both its paths; the files of a list of changes are the call\'s paths', async (t) => {
  const init = JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 's' });
  const fn = (id: string, name: string, args: unknown) =>
    JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: id, tool_call: { function: { name, arguments: JSON.stringify(args) } }, session_id: 's' });
  const input = [
    init,
    fn('cp', 'copy_file', { source: 'a.yml', destination: '.github/a.yml' }),
    fn('ef', 'edit_files', { edits: [{ path: 'src/a.ts', old: 'x', new: 'y' }, { file_path: '.github/b.yml', old: 'x', new: 'y' }] }),
    fn('other', 'apply_changes', { changes: [{ path: '.github/c.yml' }] }),
  ].join('\n');
  const out = records(runCore(input).out);
  t.same(out.map((r) => [r.call_id, r.kind, r.written ?? r.edited ?? r.touched]), [
    ['cp', 'other', ['a.yml', '.github/a.yml']],
    ['ef', 'edit', ['src/a.ts', '.github/b.yml']],
    ['other', 'other', ['.github/c.yml']],
  ]);
  t.same(runCore(input, { denyWrite: ['.github/**'] }).violations.map((v) => v.call!.callId), ['cp', 'ef', 'other']);
  t.same([...new Set(runCore(input, { noWrites: true }).violations.map((v) => v.call!.callId))], ['cp', 'ef', 'other']);
  // A copy reads its source: `cp .env public/` fails --deny-read, whatever key names the source.
  t.same(runCore(input, { denyRead: ['/p/a.yml'] }).violations.map((v) => v.call!.callId), ['cp']);
  const leak = [init, fn('leak', 'copyFile', { path: '.env', target: 'public/e.txt' })].join('\n');
  t.same(runCore(leak, { denyRead: ['**/.env'] }).violations.map((v) => v.call!.callId), ['leak']);
  // An MCP call's list of changes names its files too.
  const mcp = [init, JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: 'm', tool_call: { mcpToolCall: { args: { toolName: 'edit_files', args: { edits: [{ path: '.github/workflows/ci.yml' }] } }, result: { success: {} } } }, session_id: 's' })].join('\n');
  t.same(runCore(mcp, { denyWrite: ['.github/**'] }).violations.map((v) => v.call!.callId), ['m']);
  // An MCP call to a server's write, delete or read that names no path the audit can read fails the checks of its kind.
  const served = (toolName: string, args: unknown) =>
    [init, JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: 'm', tool_call: { mcpToolCall: { args: { name: 'fs', toolName, args }, result: { success: {} } } }, session_id: 's' })].join('\n');
  t.same(runCore(served('write_file', { location: '.github/ci.yml' }), { denyWrite: ['.github/**'] }).violations.map((v) => [v.check, v.noPath]), [['--deny-write', true]]);
  t.same(runCore(served('write_file', { location: '.github/ci.yml' }), { noWrites: true }).violations.map((v) => [v.check, v.noPath]), [['--no-writes', true]]);
  // A file's name (Playwright's screenshot) is a path the audit reads.
  t.same(runCore(served('browser_take_screenshot', { filename: '.github/ci.yml' }), { denyWrite: ['.github/**'] }).violations.map((v) => [v.check, v.noPath]), [['--deny-write', undefined]]);
  t.same(runCore(served('delete_directory', { target: '.github' }), { denyWrite: ['.github/**'] }).violations.map((v) => v.check), ['--deny-write']);
  t.same(runCore(served('read_file', { filename: '.env' }), { denyRead: ['**/.env'] }).violations.map((v) => v.check), ['--deny-read']);
  t.same(runCore(served('get_weather', { city: 'Oslo' }), { denyRead: ['**/.env'], denyWrite: ['**'], noWrites: true }).violations, [], 'a tool of no known kind, no path: nothing');
  // A tool of unknown name given a command as a list of anything may run it.
  for (const command of [[], ['rm', { flags: '-rf' }]]) {
    const unk = [init, fn('u', 'sandbox', { command })].join('\n');
    t.same(runCore(unk, { denyTool: ['shell'] }).violations.map((v) => v.call!.callId), ['u'], JSON.stringify(command));
  }
});

t.test('--tool leaves out a tool call it cannot read only when its key names a tool of a known kind left out', async (t) => {
  const initLine = JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 's' });
  const runMain = async (argv: string[], input: string) => {
    const m = memoryIo(input);
    return main(argv, m.io);
  };
  const cut = (toolCall: string) => `${initLine}\n{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":${toolCall}`;
  // The metadata key first, the flat and function forms, an MCP shell: each still fails a check --tool keeps it under.
  t.equal(await runMain(['--tool', 'write', '--deny-write', '**/.env'], cut('{"toolCallId":"c1","writeToolCall":{"args":{"path":".env","fileText":"x')), 3, 'metadata key first');
  t.equal(await runMain(['--tool', 'write', '--no-pending'], cut('{"name":"write_file","args":{"path":".env","fileText":"x')), 3, 'flat form');
  t.equal(await runMain(['--tool', 'write', '--no-pending'], cut('{"function":{"name":"write_file","arguments":"{\\"path')), 3, 'function form');
  t.equal(await runMain(['--tool', 'shell', '--no-pending'], cut('{"mcpToolCall":{"args":{"toolName":"execute_command","args":{"command":"rm')), 3, 'an MCP call');
  t.equal(await runMain(['--tool', 'read', '--no-pending'], cut('{"shellToolCall":{"args":{"command":"rm')), 0, 'a shell call, left out by --tool read');
  // A whole tool call with a value glued after it: the call was read, the line is no call the audit cannot read.
  const call = JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: 'c1', tool_call: { readToolCall: { args: { path: 'a.ts' }, result: { success: {} } } }, session_id: 's' });
  const m = memoryIo(`${initLine}\n${call} 42\n`);
  t.equal(await main(['--deny-read', '**/.env'], m.io), 0);
  t.notMatch(m.stderr(), 'cannot read');
});

t.test('--paths and the summary show a Windows session\'s paths normalized, as --absolute writes them', async (t) => {
  const init = JSON.stringify({ type: 'system', subtype: 'init', cwd: 'C:\\proj', session_id: 's' });
  const write = (id: string, p: string) => JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: id, tool_call: { writeToolCall: { args: { path: p }, result: { success: {} } } }, session_id: 's' });
  const input = [init, write('a', 'd:\\x\\..\\y'), write('b', 'src\\a.ts'), write('c', 'src/a.ts'), write('d', '.\\src\\.\\b.ts')].join('\n');
  t.equal(runCore(input, { paths: 'all' }).out, 'D:/y\nsrc/a.ts\nsrc/b.ts\n');
  t.equal(runCore(input, { paths: 'all', absolute: true }).out, 'D:/y\nC:/proj/src/a.ts\nC:/proj/src/b.ts\n');
  t.equal(normalizedForm('a\\b', '/home/u'), 'a\\b', 'in a POSIX session a backslash is part of a name');
  // Records keep each path as the call wrote it.
  t.same(records(runCore(input).out).map((r) => r.written), [['d:\\x\\..\\y'], ['src\\a.ts'], ['src/a.ts'], ['.\\src\\.\\b.ts']]);
});

t.test("shortValues: a one-letter option's value glued on is the rest of the word, as getopt(3) reads it", async (t) => {
  const options = {
    all: { alias: 'a', type: 'boolean' },
    json: { alias: 'j', type: 'boolean' },
    tool: { alias: 't', type: 'string' },
    field: { alias: 'f', type: 'string' },
  } as const;
  t.strictSame(shortValues(options, ['-tshell', 'run.ndjson']), ['--tool=shell', 'run.ndjson']);
  t.strictSame(shortValues(options, ['-ajfthe']), ['-aj', '--field=the']);
  t.strictSame(shortValues(options, ['-fVersion']), ['--field=Version'], 'letters of other flags in the value are the value');
  t.strictSame(shortValues(options, ['-f.usage']), ['--field=.usage'], 'a dot: yargs would read -f.usage as an option so named');
  t.strictSame(shortValues(options, ['-af.x']), ['-a', '--field=.x']);
  t.strictSame(shortValues(options, ['-t_x']), ['--tool=_x'], 'an underscore: yargs would read -t -_ -x');
  t.strictSame(shortValues(options, ['-f1x']), ['--field=1x'], 'a digit before letters: yargs would read -f -1 -x');
  t.strictSame(shortValues(options, ['-f=x']), ['--field==x'], 'an equals sign is the value\'s: yargs would read the field x');
  t.strictSame(shortValues(options, ['-f/', '-t*', '-k=']), ['--field=/', '--tool=*', '-k='], 'one character: yargs would read an option so named');
  t.strictSame(shortValues(options, ['-f-x', '-af-x']), ['--field=-x', '-a', '--field=-x']);
  // Left as they are: `-af x` needs nothing, `-j1` and `-xq` are errors yargs reports.
  for (const word of ['-af', '-j1', '-xq', '-', '--tool=read', '--field', 'file', '-h']) {
    t.strictSame(shortValues(options, [word]), [word], word);
  }
  t.strictSame(shortValues(options, ['-tread', '--', 'agent', '-pfoo']), ['--tool=read', '--', 'agent', '-pfoo'], 'nothing after --');
});

t.test('shortValues: a word true or false is a file, unless it is an option\'s value', async (t) => {
  const options = {
    json: { alias: 'j', type: 'boolean' },
    field: { alias: 'f', type: 'string', requiresArg: true },
    paths: { type: 'string' },
  } as const;
  // yargs takes it as the value of the flag before it.
  t.strictSame(shortValues(options, ['--json', 'true', '-j', 'false']), ['--json', '\0true', '-j', '\0false']);
  t.strictSame(shortValues(options, ['-f', 'true', '--field', 'false', '-jf', 'true']), ['-f', 'true', '--field', 'false', '-jf', 'true'], "an option's value: as it was");
  t.strictSame(shortValues(options, ['--paths', 'true'], { paths: 'all' }), ['--paths=all', '\0true'], 'after an option whose value may be left out: a file');
  t.strictSame(shortValues(options, ['-j', '--', 'true']), ['-j', '--', 'true'], 'nothing after --');
  t.strictSame(shortValues(options, ['trues', 'True', './true']), ['trues', 'True', './true']);
});

t.test("shortValues: an option that must have a value takes the next word, a dash before it or not, as getopt(3) reads it", async (t) => {
  const options = {
    all: { alias: 'a', type: 'boolean' },
    tool: { alias: 't', type: 'string', requiresArg: true },
    field: { alias: 'f', type: 'string', requiresArg: true },
    paths: { type: 'string' },
  } as const;
  const bare = { paths: 'all' };
  t.strictSame(shortValues(options, ['-t', '-s', 'run.ndjson']), ['--tool=-s', 'run.ndjson'], 'a word starting with a dash: the value');
  t.strictSame(shortValues(options, ['-at', '-s']), ['-a', '--tool=-s'], 'after flags');
  t.strictSame(shortValues(options, ['--field', '--json']), ['--field=--json']);
  t.strictSame(shortValues(options, ['-f', '-']), ['--field=-']);
  t.strictSame(shortValues(options, ['-t', '--', 'agent']), ['--tool=--', 'agent'], '`--` too: it is the value, not the end of the options');
  t.strictSame(shortValues(options, ['-t', '--', '-tshell', '-af.x', '--', '-tx']), ['--tool=--', '--tool=shell', '-a', '--field=.x', '--', '-tx'], 'and the words after it are read as options');
  t.strictSame(shortValues(options, ['-t', '--', '--paths', 'run.ndjson'], bare), ['--tool=--', '--paths=all', 'run.ndjson'], 'an option whose value may be left out after it too');
  t.strictSame(shortValues(options, ['-tshell', '-f', '-x']), ['--tool=shell', '--field=-x'], 'after a value glued on');
  t.strictSame(shortValues(options, ['-t', '-tshell', '-f', '-afx']), ['--tool=-tshell', '--field=-afx'], 'a value that looks like options with a value glued on: whole');
  t.strictSame(shortValues(options, ['-at', '-s', '-tf', '-x']), ['-a', '--tool=-s', '--tool=f', '-x'], 'a letter after the one taking a value is its value');
  t.strictSame(shortValues(options, ['-tshell', '-a']), ['--tool=shell', '-a'], 'a value glued on: the next word is its own');
  t.strictSame(shortValues(options, ['-t', 'x', '-a']), ['-t', 'x', '-a'], 'a value of no dash: as it was');
  t.strictSame(shortValues(options, ['--paths', '-a'], bare), ['--paths=all', '-a'], 'an option whose value may be left out takes one only after =');
  t.strictSame(shortValues(options, ['--paths', 'read', '--paths=read'], bare), ['--paths=all', 'read', '--paths=read']);
  t.strictSame(shortValues(options, ['--field', '--paths'], bare), ['--field=--paths'], 'as the value of another: the value');
  t.strictSame(shortValues(options, ['--tool=x', '-a']), ['--tool=x', '-a']);
  t.strictSame(shortValues(options, ['-a', '--', '-t', '-s', '--paths'], bare), ['-a', '--', '-t', '-s', '--paths'], 'nothing after --');
  t.strictSame(shortValues(options, ['-t']), ['-t'], 'none given: as it was, for yargs to say so');
  t.strictSame(
    shortValues(options, ['--get-yargs-completions', 'ndjson-tools', '--tool', '-', '--paths', 'true'], bare),
    ['--get-yargs-completions', 'ndjson-tools', '--tool', '-', '--paths', 'true'],
    "the shell's completion asks with the words as typed",
  );
});

t.test("a sub-agent's calls, listed in the result of the call that ran it, are audited and checked", async (t) => {
  const init = '{"type":"system","subtype":"init","cwd":"/repo","session_id":"s"}';
  // A task whose sub-agent ran a task of its own, `depth` deep, the innermost writing .github/ci.yml.
  const nested = (depth: number): string => {
    let call = '{"writeToolCall":{"args":{"path":".github/ci.yml","fileText":"x"},"result":{"success":{}}}}';
    for (let d = 0; d < depth; d++) call = `{"taskToolCall":{"args":{"prompt":"p${d}"},"result":{"success":{"conversationSteps":[{"assistantMessage":{"text":"t"}},{"toolCall":${call}}]}}}}`;
    return `${init}\n{"type":"tool_call","subtype":"completed","call_id":"t0","tool_call":${call},"session_id":"s"}\n`;
  };
  for (const size of [0, 1, 7, 64]) {
    const { out, violations } = runCore(nested(2), { denyWrite: ['.github/**'] }, size);
    const recs = records(out);
    t.same(
      recs.map((r) => [r.tool, r.parent_call_id, r.started, r.events, r.line]),
      [
        ['write', null, false, 0, 2],
        ['task', 't0', false, 0, 2],
        ['task', undefined, false, 1, 2],
      ],
      `the innermost first, each after the calls it ran (chunks of ${size})`,
    );
    t.same(recs[0]!.written, ['.github/ci.yml']);
    t.same(violations.map(formatViolation), ["in:2: --deny-write '.github/**': write .github/ci.yml (no call id, by the sub-agent of a call with no id, success)"]);
  }
  // Too deep to follow: the sub-agent below the limit is reported, its calls not audited.
  const deep = runCore(nested(20), { denyWrite: ['.github/**'] });
  t.same(
    records(deep.out).map((r) => r.tool),
    Array(17).fill('task'),
    'the call at the top and sixteen levels of sub-agents',
  );
  t.equal(deep.core.deepSubagent, true, 'which the command reports, failing any check');
  const limit = runCore(nested(16), { denyWrite: ['.github/**'] });
  t.same(records(limit.out)[0]!.written, ['.github/ci.yml'], 'sixteen deep, a call is audited');
  t.equal(limit.violations.length, 1);
  t.equal(limit.core.deepSubagent, false);
  // Steps without a tool call, or no steps at all, add no call.
  const plain = runCore(`${init}\n{"type":"tool_call","subtype":"completed","call_id":"t1","tool_call":{"taskToolCall":{"args":{},"result":{"success":{"conversationSteps":[{"assistantMessage":{"text":"a"}},42,null]}}}},"session_id":"s"}\n`);
  t.same(records(plain.out).map((r) => r.tool), ['task']);
  // A step that names a call under another key may hold one: a call that names no tool, which fails any check.
  for (const step of [
    '{"tool_call":{"writeToolCall":{"args":{"path":".github/x"},"result":{"success":{}}}}}',
    '{"assistantMessage":{"text":"a","toolCalls":[{"writeToolCall":{"args":{"path":".github/x"}}}]}}',
  ]) {
    const other = runCore(`${init}\n{"type":"tool_call","subtype":"completed","call_id":"t1","tool_call":{"taskToolCall":{"args":{},"result":{"success":{"conversationSteps":[${step}]}}}},"session_id":"s"}\n`);
    t.same(records(other.out).map((r) => [r.tool, r.kind]), [[null, 'other'], ['task', 'other']], step);
    t.equal(other.core.unknownCalls, true, `${step}: which the command reports, failing any check`);
  }
});

t.test('a file URL is checked as the path it names', async (t) => {
  const cases: Array<[string, string[]]> = [
    ['file:///repo/.env', ['/repo/.env']],
    ['FILE:///C:/proj/.env', ['C:/proj/.env']],
    ['file://localhost/etc/passwd', ['/etc/passwd']],
    ['file:/etc/passwd', ['/etc/passwd']],
    ['file://host/share/x', ['//host/share/x']],
    ['file:///a%20b/.env', ['/a%20b/.env', '/a b/.env']],
    ['file:///a%zz', ['/a%zz']],
    ['file:///repo/.env#L3', ['/repo/.env', '/repo/.env#L3']],
    ['file:///repo/.env?x=1', ['/repo/.env', '/repo/.env?x=1']],
    ['file://C:/proj/k.pem', ['C:/proj/k.pem']],
    ['file:C:/proj/k.pem', ['C:/proj/k.pem']],
    ['file:///C|/proj/k.pem', ['C:/proj/k.pem']],
    ['file:///c%3A/proj', ['c:/proj']],
    ['file:///%43:/proj/k', ['/%43:/proj/k', 'C:/proj/k']],
    ['file:///C:', ['C:/']],
    ['file:///a%20b%zz', ['/a%20b%zz', '/a b%zz']],
    ['/repo/.env', []],
    // Without a root: from the cwd, as some read it, and from the root, as a URL parser does.
    ['file:x', ['x', '/x']],
    ['file:.env', ['.env', '/.env']],
    ['file:a%20b', ['a%20b', 'a b', '/a%20b', '/a b']],
    ['file:', []],
    ['files/x', []],
  ];
  for (const [url, paths] of cases) t.same(fileUrlPaths(url), paths, url);
  t.ok(matchForms('file:///repo/secrets/k.pem', '/repo', true).includes('secrets/k.pem'), 'relative to the cwd too');
  const deny = { denyRead: ['secrets/**', '/etc/passwd'] };
  t.ok(violates(oneCall('read', 'file:///repo/secrets/k.pem', '/repo'), deny));
  t.ok(violates(oneCall('read', 'file:/etc/passwd', '/repo'), deny));
  t.notOk(violates(oneCall('read', 'file:///repo/src/a.ts', '/repo'), deny));
  t.ok(violates(oneCall('read', 'file:///repo/secrets/k.pem#L3', '/repo'), deny), 'a fragment left out');
  t.ok(violates(oneCall('read', 'file://C:/proj/secrets/k.pem', 'C:\\proj'), deny), 'a drive as the authority, in a Windows session');
  t.equal(resolvePath('file:///repo/a%20b.txt', '/repo'), '/repo/a b.txt', 'shown as the path it names');
  t.equal(resolvePath('file://host/share/x.txt', '/repo'), 'file://host/share/x.txt', "another host's, as written");
  t.ok(violates(oneCall('read', 'file:///%43:/proj/secrets/k', 'C:\\proj'), deny), 'a drive written with escapes');
  t.ok(violates(oneCall('read', 'file:secrets/k.pem', '/repo'), deny), 'a file URL without a root, from the cwd');
  t.ok(violates(oneCall('read', 'file:.env', '/repo'), { denyRead: ['**/.env'] }), 'file:.env');
  t.ok(violates(oneCall('read', 'file:etc/passwd', '/repo'), deny), 'and from the root');
  t.notOk(violates(oneCall('read', 'file:src/a.ts', '/repo'), deny));
});

t.test("unreadToolCalls: the whole line, a piece at a time, what is cut at a piece's end found in the next", async (t) => {
  const piece = 16 * 1024 * 1024;
  const tail = '{"type":"tool_call","subtype":"started","tool_call":{"writeToolCall":{"args":{"path":".github/x"';
  for (const offset of [10, 40, 2000]) {
    const raw = Buffer.alloc(piece - offset + tail.length, 'z');
    raw.write(tail, piece - offset, 'latin1');
    t.same(unreadToolCalls(raw), { keys: ['writeToolCall'], names: [] }, `a call starting ${offset} bytes before a piece's end`);
  }
  t.equal(unreadToolCalls(Buffer.from('{"type":"thinking","text":"\\"tool_call\\":{"}')), undefined, 'escaped in a string: none');
  const shows = (line: string) => unreadToolCalls(Buffer.from(line));
  t.same(shows('{"type":"tool_call","tool_call":{"function":{"name":"w"'), { keys: [], names: ['w'] }, 'a function call: its name');
  t.same(shows('{"type":"tool_call","tool_call":{"function":{"argu'), { keys: [], names: ['function'] }, 'a function call, its name not shown');
  t.same(shows('{"type":"tool_call","tool_call":{"function":{"arguments":"{}","name":"w"'), { keys: [], names: ['function'] }, 'its name not first');
  t.same(
    shows('{"type":"tool_call","tool_call":{"function":{"name":"write_file","arguments":"{}"},"readToolCall":{"args":{"path":"a'),
    { keys: ['readToolCall'], names: ['write_file'] },
    'a function call beside a tool key: both',
  );
  t.same(shows('{"type":"tool_call","tool_call":{"readToolCall":{"args":{"path":"a'), { keys: ['readToolCall'], names: [] }, 'a tool key alone');
  t.same(shows('{"type":"tool_call","tool_call":{"argu'), { keys: [], names: ['function'] }, 'a call cut in its first key: a tool of no known kind');
  t.same(
    shows('{"type":"tool_call","tool_call":{"readToolCall":{"args":{"path":"a"}},"name":"write_file","args":{"path":".github/x'),
    { keys: ['readToolCall'], names: ['write_file'] },
    'a tool named beside its arguments, beside a tool key: both',
  );
  t.same(shows('{"type":"tool_call","tool_call":{"name":"read_file","args":{"path":"a'), { keys: [], names: ['read_file'] }, 'a flat call alone');
  t.same(shows('{"type":"tool\\u005fcall","tool_c\\u0061ll":{"wr\\u0069teToolCall":{"args":{'), { keys: ['writeToolCall'], names: [] }, 'spelt with escapes');
  t.same(shows(':"tool_call","subtype":"started"'), { keys: [], names: [] }, 'its type alone, on a line of its own');
  t.same(shows(':{"writeToolCall":{"args":{"path":"x"}}}'), { keys: ['writeToolCall'], names: [] }, 'its tool alone, on a line of its own');
  t.same(shows('"function": {"name": "write_file", "arguments": "{}"},'), { keys: [], names: ['write_file', 'function'] }, 'a function call alone, on a line of its own');
  t.same(shows('"name": "write_file", "args": {"path": ".github/x"'), { keys: [], names: ['function'] }, 'a name alone, on a line of its own');
  t.equal(shows('"path": ".github/x", "text": "a \\"name\\": b"'), undefined, 'a line of its own with no name key: none');
  t.equal(shows('{"type":"assistant","text":"a \\"writeToolCall\\": b \\\\u0041"'), undefined, 'escaped in a string: none');
  t.equal(shows('{"type":"system","mcp_servers":[{"name":"x"'), undefined, 'a name in an event of no call: none');
});

t.test('flatToolNames: the name of each tool_call object, read by a walk of the line as far as it goes', async (t) => {
  const names = (line: string) => flatToolNames(Buffer.from(line)).names;
  t.same(names('{"type":"tool_call","tool_call":{"readToolCall":{"args":{"path":"a"}},"name":"write_file","args":{}}}'), ['write_file']);
  t.same(names('{"type":"tool_call","tool_call":{"readToolCall":{"args":{}},"name":"wri'), ['function'], 'a name cut short');
  for (const cut of ['"name"', '"name":', '"name": ', '"na', '"func', '"function":']) {
    t.same(names(`{"type":"tool_call","tool_call":{"readToolCall":{"args":{}},${cut}`), ['function'], `cut after ${cut}`);
  }
  t.same(names('{"type":"tool_call","tool_call":{"readToolCall":{"args":{}},"toolCallId'), ['function'], 'cut in any key of a tool_call object');
  t.same(names('{"type":"tool_call","tool_call":{"readToolCall":{"args":{"path":"a'), [], "cut in the call's arguments");
  t.same(names('{"tool_call":{"readToolCall":{"args":{"s":"a \\" } \\\\","n":[1,-2.5e3,true,false,null,[],{}]}},"name":"w"}}'), ['w'], 'strings, escapes and scalars stepped over');
  t.same(names('{"tool_call":{"shellToolCall":{"args":{"parsingResult":{"executableCommands":[{"name":"sleep"}]}}}}}'), [], "a name inside the call's values: none");
  t.same(names('{"tool_call":{"shellToolCall":{}}}{"type":"tool_call","tool_c\\u0061ll":{"n\\u0061me":"edit_file","args":{'), ['edit_file'], 'glued, spelt with escapes');
  t.same(names('{"task":{"steps":[{"toolCall":{"name":"delete_file","args":{}}}]}}'), ['delete_file'], "a sub-agent's step");
  t.same(names('{"tool_call":{"readToolCall":{}}} garbage "name": "x"'), ['function'], 'a name key after what is not JSON');
  t.same(names('{"tool_call":{"readToolCall":{"args":{"x":NaN}},"n\\u0061me":"w","args":{}}}'), ['function'], 'after what is not JSON, spelt with escapes');
  t.same(names('{"tool_call":{"readToolCall":{}}} garbage'), [], 'nothing after what is not JSON');
  t.same(names('{"name":"write_file","args":{}}'), [], 'an object that is no tool_call');
  t.same(names('\ufeff{"tool_call":{"name":"w","args":{}}}'), ['w'], 'after a byte order mark');
  t.same(flatToolNames(Buffer.from('"args": {"name": "x"}, "tool_call": {')), { names: ['function'], fragment: true }, 'one line of an event written over several');
  t.same(flatToolNames(Buffer.from('{"tool_call":{"name":"w"}}')), { names: ['w'], fragment: false });
});

t.test('a line the audit cannot read, under --tool: cleared only by keys naming tools it leaves out, every other tool it shows cleared too', async (t) => {
  const init = JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 's' });
  const H = '{"type":"tool_call","subtype":"started","call_id":"c","session_id":"s","tool_call":';
  const verdict = (lines: string[]) => {
    const core = new ToolsCore({ tools: ['write'], noWrites: true });
    const emit = () => {};
    const reader = new EventReader({ record: (r) => core.record(r, emit), problem: (p) => core.problem(p) }, { needs: (type) => core.needs(type) });
    reader.startSource('in');
    reader.write(Buffer.from(lines.join('\n')));
    reader.endSource();
    core.end(emit);
    return core.unaudited;
  };
  t.equal(verdict([init, `${H}{"readToolCall":{"args":{"path":"a`]), 0, 'a read, cut short in its arguments: left out');
  t.equal(verdict([init, `${H}{"readToolCall":{"args":{"path":"a"}}`]), 1, 'a read, cut after it: what came next is not known');
  for (const [what, line] of [
    ['a name inside the arguments, no tool key', `${H}{"args":{"path":".github/x","tool_call":{"name":"read_file","args":{}}},"na`],
    ['a function inside the arguments, no tool key', `${H}{"args":{"function":{"name":"read_file"}},"na`],
    ['a name with no arguments beside it', `${H}{"name":"read_file","write":{"args":{"path":".github/x"`],
    ['a name cut before its value', `${H}{"readToolCall":{"args":{"path":"a"}},"name":`],
    ['a name cut before its value, a space after the colon', `${H}{"readToolCall":{"args":{"path":"a"}},"name": `],
    ['a name after what is not JSON, spelt with escapes', `${H}{"readToolCall":{"args":{"x":NaN}},"n\\u0061me":"write_file","args":{"path":".github/x"}}}`],
    ['a function beside the tool key', `${H}{"function":{"name":"write_file","arguments":"{}"},"readToolCall":{"args":{"path":"a`],
    ['a tool named by a plain key, after an event of a tool key', `${H}{"shellToolCall":{"args":{"command":"ls"}}}}${H}{"write_file":{"args":{"path":".github/x"`],
    ['a tool key with a character no word holds', `${H}{"shellToolCall":{},"write-fileToolCall":{"args":{"path":".github/x"`],
    ['a flat call cut after its arguments, before its name', `${H}{"shellToolCall":{},"args":{"path":".github/x"}`],
    ['a flat call cut after its arguments as a string, before its name', `${H}{"shellToolCall":{},"arguments":"{}"`],
    ...['"writeToolCall"', '"writeToolCall" ', '"writeTool', '"n\\u0061me', '"func\\u0074ion', '"args":', '"args"', '"toolCallId":"x', '"x":tru', '"x":1'].map(
      (cut) => [`cut in a tool_call object's member: ${cut}`, `${H}{"shellToolCall":{"args":{"command":"ls"}},${cut}`],
    ),
    ['a tool named by a plain key after arguments', `${H}{"shellToolCall":{},"args":{},"name":"shell","write_file":{"args":{"path":".github/x"`],
    [
      "Claude Code's tool_use, a tool key of the other dialect in a string",
      '{"type":"assistant","message":{"content":[{"type":"text","text":"\\u0022shellToolCall\\u0022:"},{"type":"tool_use","name":"Write","input":{"file_path":".github/x"',
    ],
  ]) {
    t.equal(verdict([init, line!]), 1, what);
  }
  // One line of an event written over several: a function or a name on a line of its own.
  t.equal(verdict([init, `${H}{"readToolCall":{"args":{"path":"a",`, '"name":"write_file","args":{"path":".github/x"']), 1, 'a name on a line of its own');
  t.equal(verdict([init, `${H}{"readToolCall":{"args":{"path":"a",`, '"function":{"name":"write_file","arguments":"{}"']), 1, 'a function on a line of its own');
  // In UTF-16 (a run appended by Windows PowerShell's `>>`), where U+2022 without its zero bytes would be a quote; the
  // second line starts with the zero byte that ended the first.
  const flat = `${H}{"readToolCall":{"args":{"path":"\u2022,"}},"name":"write_file","args":{"path":".github/x"}}}`;
  const read = `${H}{"readToolCall":{"args":{"path":"\u2022,"}}}}`;
  const utf16 = (lines: string[]) => Buffer.concat([Buffer.from(`${init}\n`), Buffer.from(lines.join('\n'), 'utf16le')]);
  const verdict16 = (input: Buffer) => {
    const core = new ToolsCore({ tools: ['write'], noWrites: true });
    const reader = new EventReader({ record: (r) => core.record(r, () => {}), problem: (p) => core.problem(p) }, { needs: (type) => core.needs(type) });
    reader.startSource('in');
    reader.write(input);
    reader.endSource();
    core.end(() => {});
    return core.unaudited;
  };
  t.equal(verdict16(utf16([read, read])), 0, 'UTF-16, reads: left out');
  t.equal(verdict16(utf16([flat])), 1, 'UTF-16, a name beside a read');
  t.equal(verdict16(utf16([read, flat])), 1, 'UTF-16, a name beside a read, on the line after another');
  // Cut in a character, after another UTF-16 line: an even length, read one byte on all the same.
  const cutFlat = `${H}{"shellToolCall":{},"name":"write_file","args":{"path":".github/x"`;
  const cutInCharacter = Buffer.concat([Buffer.from(`${init}\n`), Buffer.from('{}\n', 'utf16le'), Buffer.from(cutFlat, 'utf16le').subarray(0, -1)]);
  t.equal(verdict16(cutInCharacter), 1, 'UTF-16, cut in a character after another line: a name beside a shell call');
  const readName = `${H}{"readToolCall":{"args":{"path":"\u2022,"}},"name":"read_file","args":{"path":"b"}}}`;
  t.equal(verdict16(utf16([read, readName])), 0, 'UTF-16, a read named beside a read: read as its text, left out');
});

t.test('a call seen as two tools: each is checked, and its paths listed as each', async (t) => {
  const init = JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 's' });
  const ev = (subtype: string, toolCall: Record<string, unknown>) => JSON.stringify({ type: 'tool_call', subtype, call_id: 'c1', tool_call: toolCall, session_id: 's' });
  const read = { readToolCall: { args: { path: 'a.txt' }, result: { success: {} } } };
  const write = { writeToolCall: { args: { path: '.github/x' }, result: { success: {} } } };
  // One event naming two tools, completed or started (and left pending): checked as each.
  for (const [what, lines] of [
    ['one completion, two tools', [init, ev('completed', { ...read, ...write })]],
    ['one start, two tools', [init, ev('started', { ...read, ...write })]],
    ['one start, two tools, then completed as one', [init, ev('started', { ...read, ...write }), ev('completed', read)]],
  ] as const) {
    const input = `${lines.join('\n')}\n`;
    t.same(runCore(input, { denyWrite: ['.github/**'] }).violations.map((v) => [v.check, v.path]), [['--deny-write', '.github/x']], `${what}: --deny-write`);
    t.equal(records(runCore(input).out).length, 1, `${what}: one record`);
    t.same(runCore(input, { paths: 'written' }).out, '.github/x\n', `${what}: --paths=written`);
    const summary = runCore(input, { summary: true, json: true }).out;
    t.same((JSON.parse(summary) as { written: string[] }).written, ['.github/x'], `${what}: the summary's files written`);
    t.equal((JSON.parse(summary) as { calls: number }).calls, 1, `${what}: one call counted`);
  }
  // Started as a write, completed as a read: the write's path is a written one, as the checks have it.
  const moved = `${[init, ev('started', { writeToolCall: { args: { path: '.github/x' } } }), ev('completed', read)].join('\n')}\n`;
  t.same(runCore(moved, { noWrites: true }).violations.map((v) => v.path), ['.github/x']);
  t.same(runCore(moved, { paths: 'written' }).out, '.github/x\n');
  t.same(runCore(moved, { paths: 'written', tools: ['read'] }).out, '', '--tool read: the write view is left out, as by the checks');
});

t.test('what a result, a second tool or an init says is not lost', async (t) => {
  const init = JSON.stringify({ type: 'system', subtype: 'init', cwd: '/repo', session_id: 's' });
  const ev = (toolCall: Record<string, unknown>, subtype = 'completed') => JSON.stringify({ type: 'tool_call', subtype, call_id: 'c1', tool_call: toolCall, session_id: 's' });
  const write = (result: unknown, path = '.github/ci.yml') => ({ writeToolCall: { args: { path }, result } });
  const checked = (lines: string[], options: ToolsOptions) => runCore(`${lines.join('\n')}\n`, options);
  // A variant said not to be is none; a refusal beside a variant of a call that acted does not hide it.
  t.same(records(checked([init, ev(write({ rejected: false, success: {} }))], {}).out)[0]!.status, 'success');
  t.same(checked([init, ev(write({ rejected: false, success: {} }))], { denyWrite: ['.github/**'] }).violations.map((v) => v.path), ['.github/ci.yml']);
  t.same(records(checked([init, ev(write({ rejected: {}, success: {} }))], {}).out)[0]!.status, 'success', 'rejected and success: it acted');
  t.same(records(checked([init, ev(write({ success: false, error: { error: 'EACCES' } }, 'CHANGELOG.md'))], {}).out)[0]!.status, 'error');
  t.same(checked([init, ev(write({ success: false, error: { error: 'EACCES' } }, 'CHANGELOG.md'))], { requireWrite: ['CHANGELOG.md'] }).violations.map((v) => v.check), ['--require-write']);
  t.same(records(checked([init, ev(write({ rejected: {} }))], {}).out)[0]!.status, 'rejected', 'a refusal alone is one');
  // A sub-agent's steps wherever its task's result holds them.
  const steps = [{ toolCall: write({ success: {} }) }];
  for (const [what, result] of [
    ['at its top', { conversationSteps: steps }],
    ['under a variant after another', { error: { message: 'aborted' }, success: { conversationSteps: steps } }],
    ['under a key not known', { meta: {}, partial: { conversationSteps: steps } }],
  ] as const) {
    const run = checked([init, ev({ taskToolCall: { args: {}, result } })], { denyWrite: ['.github/**'] });
    t.same(records(run.out).map((r) => r.tool), ['write', 'task'], what);
    t.same(run.violations.map((v) => v.path), ['.github/ci.yml'], what);
  }
  // A function beside a tool key: checked as each.
  const both = ev({ readToolCall: { args: { path: 'a.txt' }, result: { success: {} } }, function: { name: 'write_file', arguments: JSON.stringify({ path: '.github/ci.yml' }) } });
  t.same(checked([init, both], { denyWrite: ['.github/**'] }).violations.map((v) => v.path), ['.github/ci.yml']);
  // And a tool named beside its arguments in the tool_call object itself, beside a tool key, started or completed.
  const flat = { readToolCall: { args: { path: 'a.txt' }, result: { success: {} } }, name: 'write_file', args: { path: '.github/ci.yml' } };
  t.same(checked([init, ev(flat)], { denyWrite: ['.github/**'] }).violations.map((v) => v.path), ['.github/ci.yml'], 'flat, completed');
  t.same(checked([init, ev(flat, 'started')], { denyWrite: ['.github/**'] }).violations.map((v) => v.path), ['.github/ci.yml'], 'flat, started');
  t.same(records(checked([init, ev(flat)], {}).out)[0]!.tool, 'read', 'the record names the tool key');
  // A name with nothing of a call beside it is no call.
  t.same(checked([init, ev({ readToolCall: { args: { path: 'a.txt' }, result: { success: {} } }, name: 'write_file' })], { noWrites: true }).violations.length, 0);
  t.same(checked([init, ev(flat)], { noWrites: true }).violations.map((v) => v.check), ['--no-writes'], 'flat: a write');
  // A function call's arguments under `args` beside `arguments`: both count, started or completed.
  const twice = { function: { name: 'write_file', arguments: JSON.stringify({ path: 'ok.txt' }), args: { path: '.github/ci.yml' } } };
  t.same(checked([init, ev(twice)], { denyWrite: ['.github/**'] }).violations.map((v) => v.path), ['.github/ci.yml'], 'completed');
  t.same(checked([init, ev(twice, 'started')], { denyWrite: ['.github/**'] }).violations.map((v) => v.path), ['.github/ci.yml'], 'started, never completed');
  t.same(records(checked([init, ev(twice)], {}).out)[0]!.written, ['ok.txt', '.github/ci.yml']);
  // A run whose init names no cwd has none: not the run's before it.
  const read = ev({ readToolCall: { args: { path: '/home/u/p/secrets/k.pem' }, result: { success: {} } } });
  const inits = [JSON.stringify({ type: 'system', subtype: 'init', cwd: '/home/u/other', session_id: 's' }), JSON.stringify({ type: 'system', subtype: 'init', session_id: 's' })];
  const second = checked([...inits, read], { denyRead: ['secrets/**'] });
  t.equal(records(second.out)[0]!.cwd, undefined);
  t.same(second.violations.map((v) => v.check), ['--deny-read'], 'checked as in a session with no cwd');
});

t.test("a task's result carried on its start: its sub-agent's calls audited once, unless its completion lists them", async (t) => {
  const init = JSON.stringify({ type: 'system', subtype: 'init', cwd: '/repo', session_id: 's' });
  const steps = (path: string) => ({ success: { conversationSteps: [{ toolCall: { writeToolCall: { args: { path }, result: { success: {} } } } }] } });
  const task = (subtype: string, result: unknown) => JSON.stringify({ type: 'tool_call', subtype, call_id: 't1', tool_call: { taskToolCall: { args: {}, result } }, session_id: 's' });
  // Its start lists them, its completion none: audited at the completion, before its record.
  const early = runCore(`${[init, task('started', steps('.github/ci.yml')), task('completed', { success: {} })].join('\n')}\n`, { denyWrite: ['.github/**'] });
  t.same(records(early.out).map((r) => [r.tool, r.line]), [['write', 2], ['task', 2]]);
  t.same(early.violations.map((v) => v.path), ['.github/ci.yml']);
  // Both list them: the completion's alone, once.
  const both = runCore(`${[init, task('started', steps('a.txt')), task('completed', steps('.github/ci.yml'))].join('\n')}\n`, { denyWrite: ['.github/**'] });
  t.same(records(both.out).map((r) => [r.tool, r.written ?? null]), [['write', ['.github/ci.yml']], ['task', null]]);
  // Never completed: audited with the pending call, at the end.
  const pending = runCore(`${[init, task('started', steps('.github/ci.yml'))].join('\n')}\n`, { denyWrite: ['.github/**'] });
  t.same(records(pending.out).map((r) => [r.tool, r.status]), [['write', 'success'], ['task', 'pending']]);
  t.same(pending.violations.map((v) => v.path), ['.github/ci.yml']);
  // Its steps skimmed (large values read from the buffer they were read into, as they are needed), and megabytes read
  // into the same buffers before its completion: kept whole.
  const write = (p: string) => ({ toolCall: { writeToolCall: { args: { path: p }, result: { success: {} } } } });
  // An edit by a patch too long to be read with its line (read when its files are looked for), a file of `.github` in it.
  const patch = `*** Begin Patch\n*** Update File: .github/deploy.yml\n${'+x\n'.repeat(3000)}*** End Patch\n`;
  const edit = { toolCall: { editToolCall: { args: { path: 'README.md', patch }, result: { success: {} } } } };
  const big = { success: { conversationSteps: [write('.github/ci.yml'), edit] } };
  const filler = JSON.stringify({ type: 'thinking', subtype: 'delta', text: 'y'.repeat(4000), session_id: 's' });
  const file = path.join(os.tmpdir(), `ndjson-tools-early-steps-${process.pid}.ndjson`);
  t.teardown(() => fs.rmSync(file, { force: true }));
  fs.writeFileSync(file, `${[init, task('started', big), ...Array(3000).fill(filler), task('completed', { success: {} })].join('\n')}\n`);
  const m = memoryIo('');
  const code = await main(['--deny-write', '.github/**', file], m.io);
  t.equal(code, 3);
  t.match(m.stderr(), /--deny-write '\.github\/\*\*': write \.github\/ci\.yml/);
  t.match(m.stderr(), /--deny-write '\.github\/\*\*': edit \.github\/deploy\.yml/);
  t.same(records(m.stdout()).map((r) => r.tool), ['write', 'edit', 'task']);
});

t.test("a tool's args that are no object: reported with args_error, given whole under --full, and the checks not cleared", async (t) => {
  const init = '{"type":"system","subtype":"init","session_id":"s","cwd":"/r"}';
  const read = (args: string) => `${init}\n{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"readToolCall":{"args":${args},"result":{"success":{}}}},"session_id":"s"}\n`;
  for (const [args, error, paths] of [
    ['["a.txt"]', 'not an object', undefined],
    ['5', 'not an object', undefined],
    ['"oops"', 'not JSON', undefined],
    ['"{\\"path\\":\\"b.txt\\"}"', undefined, ['b.txt']],
    ['"[1,{\\"path\\":\\"c.txt\\"}]"', 'not an object', ['c.txt']],
  ] as const) {
    const full = records(runCore(read(args), { full: true }).out)[0]!;
    t.equal(full.args_error, error, `${args}: args_error`);
    t.same(full.read, paths, `${args}: paths`);
    t.same(full.args, error === undefined ? JSON.parse(JSON.parse(args)) : JSON.parse(args), `${args}: args as given`);
    // Arguments not read whole: the checks cannot clear the call, whatever of them names a path.
    t.equal(runCore(read(args), { denyRead: ['nothing/**'] }).violations.length, error === undefined ? 0 : 1, `${args}: the checks`);
  }
  t.equal(records(runCore(read('null'), { full: true }).out)[0]!.args, undefined, 'null: no args');
  // Under --full, JSON text's numbers as it writes them.
  t.match(runCore(read('"{\\"path\\":\\"b.txt\\",\\"limit\\":1.50}"'), { full: true }).out, /"args":\{"path":"b\.txt","limit":1\.50\}/);
});

t.test('--full: args and result with their numbers as the stream wrote them', async (t) => {
  const init = '{"type":"system","subtype":"init","session_id":"s","cwd":"/r"}';
  const args = '{"path":"a","offset":12345678901234567890,"z":-0,"f":1.0}';
  const result = '{"success":{"totalLines":1.50,"n":[1e2,0.10,12345678901234567891]}}';
  const read = (subtype: string, more = '') => `{"type":"tool_call","subtype":"${subtype}","call_id":"c1","tool_call":{"readToolCall":{"args":${args}${more}}},"session_id":"s"}`;
  const cursor = [init, read('started'), read('completed', `,"result":${result}`)];
  const fields = (out: string) => out.split('\n').filter(Boolean).map((line) => line.slice(line.indexOf(',"args":')));
  const expected = [`,"args":${args},"result":${result}}`];
  const input = `${cursor.join('\n')}\n`;
  for (let size = 0; size <= input.length; size += size < 40 ? 1 : 29) t.same(fields(runCore(input, { full: true }, size).out), expected, `size ${size}`);
  // Pretty-printed, and as an array of events on one line (Claude Code's --output-format json --verbose).
  t.same(fields(runCore(`${cursor.map((e) => e.replace(/,"/g, ',\n  "')).join('\n')}\n`, { full: true }).out), expected, 'pretty-printed');
  t.same(fields(runCore(`[${cursor.join(',')}]\n`, { full: true }).out), expected, 'an array');
  // Completed without args: those of its start; never completed: its start's.
  t.same(fields(runCore(`${[init, read('started'), `{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"readToolCall":{"result":${result}}},"session_id":"s"}`].join('\n')}\n`, { full: true }).out), expected);
  t.same(fields(runCore(`${[init, read('started')].join('\n')}\n`, { full: true }).out), [`,"args":${args}}`]);
  // A function call's arguments text.
  const fn = `{"type":"tool_call","subtype":"started","call_id":"c2","tool_call":{"function":{"name":"read_file","arguments":"{\\"path\\":\\"b\\",\\"n\\":12345678901234567890, \\"m\\": 2.50}"}},"session_id":"s"}`;
  t.same(fields(runCore(`${[init, fn].join('\n')}\n`, { full: true }).out), [',"args":{"path":"b","n":12345678901234567890,"m":2.50}}']);
  // Claude Code's tool_use and tool_result blocks.
  const use = '{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/r/a","limit":2000.0}}]},"session_id":"s"}';
  const answer = '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"ok","meta":{"n":1.50}}]},"session_id":"s"}';
  t.same(fields(runCore(`${[init, use, answer].join('\n')}\n`, { full: true }).out), [
    ',"args":{"file_path":"/r/a","limit":2000.0},"result":{"tool_use_id":"t1","type":"tool_result","content":"ok","meta":{"n":1.50}}}',
  ]);
  // A sub-agent's calls, listed by its task's completion, or by its start with megabytes read before its completion.
  const step = '{"toolCall":{"readToolCall":{"args":{"path":"d","limit":1.0},"result":{"success":{"totalLines":12345678901234567890}}}}}';
  const task = (subtype: string, res: string) => `{"type":"tool_call","subtype":"${subtype}","call_id":"t1","tool_call":{"taskToolCall":{"args":{},"result":${res}}},"session_id":"s"}`;
  const steps = `{"success":{"conversationSteps":[${step}]}}`;
  const stepFields = ',"args":{"path":"d","limit":1.0},"result":{"success":{"totalLines":12345678901234567890}}}';
  t.same(fields(runCore(`${[init, task('completed', steps)].join('\n')}\n`, { full: true }).out)[0], stepFields, 'listed by its completion');
  const filler = JSON.stringify({ type: 'thinking', subtype: 'delta', text: 'y'.repeat(4000), session_id: 's' });
  const early = `${[init, task('started', steps), ...Array(300).fill(filler), task('completed', '{"success":{}}')].join('\n')}\n`;
  t.same(fields(runCore(early, { full: true }, 65536).out)[0], stepFields, 'listed by its start');
  t.same(fields(runCore(`${[init, task('started', steps)].join('\n')}\n`, { full: true }).out)[0], stepFields, 'listed by a start never completed');
  // Steps listed by the start with numbers JSON cannot hold as they are (1e400, -0): kept as they were.
  const odd = `{"success":{"conversationSteps":[${step.replace('"limit":1.0', '"limit":1e400,"z":-0')}]}}`;
  t.same(
    fields(runCore(`${[init, task('started', odd), task('completed', '{"success":{}}')].join('\n')}\n`, { full: true }).out)[0],
    stepFields.replace('"limit":1.0', '"limit":1e400,"z":-0'),
    'listed by its start, 1e400 and -0 kept',
  );
  // Arguments, and a result, that are a bare number.
  const bare = '{"type":"tool_call","subtype":"completed","call_id":"c3","tool_call":{"function":{"name":"f","arguments":12345678901234567891},"result":-0},"session_id":"s"}';
  t.same(fields(runCore(`${[init, bare].join('\n')}\n`, { full: true }).out), [',"args":12345678901234567891,"result":-0}']);
  // Values alike as numbers, written otherwise, in one event: each as written at its own place.
  const pid = (id: string, n: string) => `{"type":"tool_use","id":"${id}","name":"Bash","input":{"command":"kill","pid":${n}}}`;
  const kills = [
    init,
    `{"type":"assistant","message":{"role":"assistant","content":[${pid('t1', '12345678901234567891')},${pid('t2', '12345678901234567890')},${pid('t3', '1.0')},${pid('t4', '1')}]},"session_id":"s"}`,
    `{"type":"user","message":{"role":"user","content":[${['t1', 't2', 't3', 't4'].map((id) => `{"tool_use_id":"${id}","type":"tool_result","content":"ok"}`).join(',')}]},"session_id":"s"}`,
  ];
  t.same(
    runCore(`${kills.join('\n')}\n`, { full: true }).out.split('\n').filter(Boolean).map((line) => /"pid":([^}]*)/.exec(line)![1]),
    ['12345678901234567891', '12345678901234567890', '1.0', '1'],
  );
  const twoSteps = `{"success":{"conversationSteps":[${step},${step.replace('"limit":1.0', '"limit":1')}]}}`;
  t.same(
    fields(runCore(`${[init, task('completed', twoSteps)].join('\n')}\n`, { full: true }).out).slice(0, 2),
    [stepFields, stepFields.replace('"limit":1.0', '"limit":1')],
    'two steps alike',
  );
});

t.test('a call naming many paths, or long ones, is read and checked path by path', async (t) => {
  // Thousands of paths, repeated: each once, in order, in the record and in the checks.
  const many = Array.from({ length: 3000 }, (_, i) => `f${i % 1000}`);
  const { out, violations } = runCore(callOf('readToolCall', { paths: [...many, './f1', '/home/u/p/f2'] }), { denyRead: ['f*'] });
  t.same(records(out)[0]!.read, Array.from({ length: 1000 }, (_, i) => `f${i}`), 'each path once, one spelling of each');
  t.same(violations.map((v) => v.path), Array.from({ length: 1000 }, (_, i) => `f${i}`), 'one violation a file, shown as first named');
  // Without a cwd, an absolute path of the result is the relative one the arguments named.
  const noCwd = [
    { type: 'system', subtype: 'init', session_id: 's' },
    { type: 'tool_call', subtype: 'completed', call_id: 'c', session_id: 's', tool_call: { readToolCall: { args: { paths: ['x/.env', 'y/.env', 'z'] }, result: { success: { path: '/r/y/.env' } } } } },
  ];
  const cwdless = runCore(noCwd.map((e) => JSON.stringify(e)).join('\n') + '\n', { denyRead: ['**/.env'] }).violations;
  t.same(cwdless.map((v) => v.path), ['x/.env', 'y/.env']);
  // A patch's file name ends at the line's end, its trailing space left out; one of spaces alone is its first.
  const patch = `*** Begin Patch\n*** Add File: a${' '.repeat(5000)}b   \n*** Update File: c \t\r\n*** Add File:    \n*** End Patch\n`;
  const patched = records(runCore(callOf('function', { input: patch }, '/home/u/p', 'apply_patch')).out)[0]!;
  t.same(patched.edited, [`a${' '.repeat(5000)}b`, 'c', ' ']);
  // A name as Windows reads it: the dots and spaces it ends with left out, however many.
  t.ok(violates(oneCall('read', `.env${'. '.repeat(120)}`, 'C:\\proj'), { denyRead: ['**/.env'] }), '.env followed by dots and spaces');
  t.notOk(violates(oneCall('read', `.env${'. '.repeat(120)}x`, 'C:\\proj'), { denyRead: ['**/.env'] }), 'not when a letter ends it');
});

t.test('a path of more parts than the checks try fails every deny check and meets no required write', async (t) => {
  const deep = Array.from({ length: 20000 }, () => 'a').join('/');
  const read = runCore(oneCall('read', deep, '/r'), { denyRead: ['**/secrets/**', '**/.env'] }).violations;
  t.equal(read.length, 1, 'one line for the path');
  t.equal(read[0]!.pattern, '**/secrets/**');
  t.match(formatViolation(read[0]!), /--deny-read '\*\*\/secrets\/\*\*': read a\/a\/a\/.*…, a path of more parts than the audit checks \(16384\) or with a name longer \(255 characters\) \(call c, success\)$/);
  t.equal(runCore(oneCall('write', deep, '/r'), { denyWrite: ['x'] }).violations.length, 1, 'a write too');
  const required = runCore(oneCall('write', `${deep}/docs/x.md`, '/r'), { requireWrite: ['**/docs/**'] }).violations;
  t.same(required.map((v) => v.check), ['--require-write'], 'a required write it may be is not met');
  // A path as deep as a system takes is tried as any other.
  const long = Array.from({ length: 16000 }, () => 'a').join('/');
  t.notOk(violates(oneCall('read', long, '/r'), { denyRead: ['**/secrets/**'] }));
  t.ok(violates(oneCall('read', `${long}/secrets/k`, '/r'), { denyRead: ['**/secrets/**'] }));
  // A name longer than a file system holds is not tried either: a glob of several stars in one part took the length of
  // the part to the power of their number (`*a*a*a*a*b` on 300 characters, 39 s).
  const name = 'a'.repeat(256);
  for (const p of [name, `d/${name}`, `${name}/x`, `d\\${name}\\x`]) {
    const v = runCore(oneCall('read', p, '/r'), { denyRead: ['*a*a*a*a*b'] }).violations;
    t.same(v.map((x) => [x.check, x.tooDeep]), [['--deny-read', true]], `a name of 256 characters in ${p.length > 300 ? p.slice(0, 2) + '…' : p}`);
  }
  t.match(formatViolation(runCore(oneCall('read', name, '/r'), { denyRead: ['x'] }).violations[0]!), /a path of more parts than the audit checks \(16384\) or with a name longer \(255 characters\)/);
  t.notOk(violates(oneCall('read', `d/${'a'.repeat(255)}/x`, '/r'), { denyRead: ['*a*a*a*b'] }), 'one of 255 is tried');
  t.same(runCore(oneCall('write', `docs/${name}`, '/r'), { requireWrite: ['docs/**'] }).violations.map((v) => v.check), ['--require-write'], 'nor meets a required write');
});

t.test('a call started more than MAX_STARTS times: the starts after are counted, not read, and the checks cannot pass', async (t) => {
  const start = (i: number) => JSON.stringify({ type: 'tool_call', subtype: 'started', call_id: 'c', session_id: 's', tool_call: { [i % 2 ? 'readToolCall' : 'writeToolCall']: { args: { path: `f${i}` } } } });
  const input = `${Array.from({ length: MAX_STARTS + 50 }, (_, i) => start(i)).join('\n')}\n`;
  let m = memoryIo(input);
  t.equal(await main(['--no-writes'], m.io), 3);
  const rec = JSON.parse(m.stdout()) as { events: number; read: string[]; written: string[] };
  t.equal(rec.events, MAX_STARTS + 50, 'every start counted');
  t.equal(rec.read.length + (rec.written?.length ?? 0), MAX_STARTS, 'the paths of the first MAX_STARTS read');
  t.notOk(rec.read.includes(`f${MAX_STARTS}`), 'none after');
  const said = m.stderr().split('\n').filter((l) => l.includes('started more than'));
  t.same(said, [`ndjson-tools: stdin:${MAX_STARTS + 1}: call c started more than ${MAX_STARTS} times: the starts after are not audited: the checks cannot pass`], 'said once');
  // Without a check: said, and no failure.
  m = memoryIo(input);
  t.equal(await main([], m.io), 0);
  t.match(m.stderr(), `stdin:${MAX_STARTS + 1}: call c started more than ${MAX_STARTS} times: the starts after are not audited\n`);
  // MAX_STARTS starts are all read.
  m = memoryIo(input.split('\n').slice(0, MAX_STARTS).join('\n') + '\n');
  t.equal(await main(['--no-writes'], m.io), 3);
  t.notMatch(m.stderr(), 'started more than');
  t.match(m.stderr(), `--no-writes: write f${MAX_STARTS - 2} (call c, pending)`);
});

t.test('with no absolute cwd, a relative path meets an absolute deny glob only where some cwd puts it under the glob', async (t) => {
  const write = (path: string) => ({ type: 'tool_call', subtype: 'completed', call_id: 'c', session_id: 's', tool_call: { writeToolCall: { args: { path }, result: { success: {} } } } });
  const flagged = (cwd: string | undefined, path: string, glob: string): boolean => {
    const init = cwd === undefined ? [] : [{ type: 'system', subtype: 'init', session_id: 's', cwd }];
    const events = [...init, write(path)].map((e) => JSON.stringify(e)).join('\n') + '\n';
    return runCore(events, { denyWrite: [glob] }).violations.length > 0;
  };
  const eight = '{a,b,c,d,e,f,g,h}';
  const cases: Array<[string | undefined, string, string, boolean]> = [
    [undefined, '.github/workflows/ci.yml', '/r/.github/**', true],
    [undefined, 'notes.txt', '/r/.github/**', true], // the cwd may be /r/.github
    [undefined, 'notes.txt', '/r/a/k.pem', false],
    [undefined, 'a/k.pem', '/r/a/k.pem', true],
    [undefined, 'b/k.pem', '/r/a/k.pem', false],
    // More alternatives than are expanded one by one: the glob's parts from each on, braces and all.
    [undefined, 'notes.txt', `/r/${eight}/${eight}/{x,y}/k.pem`, false],
    [undefined, 'h/h/y/k.pem', `/r/${eight}/${eight}/{x,y}/k.pem`, true],
    [undefined, 'h/z/y/k.pem', `/r/${eight}/${eight}/{x,y}/k.pem`, false],
    // A slash in braces: parts that are no glob of their own: every path.
    [undefined, 'notes.txt', `/r/{a/b,${eight.slice(1, -1)}}/${eight}/{x,y}/k.pem`, true],
    // A relative cwd: the path lies in a directory of that name.
    ['repo', 'b.yml', '/r/a/b.yml', false],
    ['repo', 'b.yml', '/r/repo/b.yml', true],
    ['.', 'a/b.yml', '/r/a/b.yml', true],
    ['/home/u/p', 'a/b.yml', '/r/a/b.yml', false],
  ];
  for (const [cwd, path, glob, expected] of cases) t.equal(flagged(cwd, path, glob), expected, `cwd ${cwd}: ${path} under ${glob}`);
});

t.test('a call with no cwd naming absolute and relative paths of one file: each file reported once, as first named', async (t) => {
  const cases: Array<[string[], string[]]> = [
    [['y/.env', '/r/y/.env', '/q/y/.env', 'x/.env', '/r/x/.env'], ['y/.env', 'x/.env']],
    // `/z/.env` is `z/.env`, which is `/r/z/.env`; `a/z/.env` is neither absolute one.
    [['/r/z/.env', 'z/.env', 'a/z/.env', '/z/.env'], ['/r/z/.env', 'a/z/.env', 'z/.env']],
    // A relative path above the cwd, or one that is no ending of the absolute one: another file.
    [['../y/.env', '/r/y/.env', 'r/y/.env', 'ry/.env'], ['../y/.env', '/r/y/.env', 'ry/.env']],
    // A share's path ends in its parts; a Windows path is one name outside a Windows session.
    [['C:\\p\\y\\.env', 'y/.env', '//host/share/y/.env', 'share/y/.env'], ['C:\\p\\y\\.env', 'y/.env', '//host/share/y/.env']],
  ];
  for (const [paths, shown] of cases) {
    const event = { type: 'tool_call', subtype: 'completed', call_id: 'c', session_id: 's', tool_call: { readToolCall: { args: { paths }, result: { success: {} } } } };
    const v = runCore(JSON.stringify(event) + '\n', { denyRead: ['**/.env'] }).violations;
    t.same(v.map((x) => x.path), shown, paths.join(' '));
  }
  // Thousands of one name, absolute and relative in turn: each its own file, reported as named.
  const many = Array.from({ length: 4000 }, (_, i) => (i % 2 === 0 ? `d${i}/.env` : `/d${i}/.env`));
  const event = { type: 'tool_call', subtype: 'completed', call_id: 'c', session_id: 's', tool_call: { readToolCall: { args: { paths: many }, result: { success: {} } } } };
  t.same(runCore(JSON.stringify(event) + '\n', { denyRead: ['**/.env'] }).violations.map((x) => x.path), many);
});

t.test('a call naming thousands of denied paths of one name: each reported as named', async (t) => {
  const paths = Array.from({ length: 3000 }, (_, i) => `d${i}/.env`);
  for (const cwd of ['/r', undefined]) {
    const events = [
      ...(cwd === undefined ? [] : [{ type: 'system', subtype: 'init', session_id: 's', cwd }]),
      { type: 'tool_call', subtype: 'completed', call_id: 'c', session_id: 's', tool_call: { readToolCall: { args: { paths }, result: { success: { path: cwd === undefined ? '/x/d7/.env' : `${cwd}/d7/.env` } } } } },
    ];
    const v = runCore(events.map((e) => JSON.stringify(e)).join('\n') + '\n', { denyRead: ['**/.env'] }).violations;
    t.same(v.map((x) => x.path), paths, `cwd ${cwd}: the result's path is the one the args named`);
  }
});

t.test('review fixes: a glob tool\'s `**` standing for no directory, an absolute path\'s tail from its root, a deny glob\'s group of one, a delete above an extglob', async (t) => {
  // A glob tool's pattern, as a grep's glob: each `**` part may stand for no directory, so `**/secrets/**` lists `./secrets`.
  for (const pattern of ['**/secrets/**', '**/secrets/*.pem', '**/**/secrets/*']) {
    t.ok(violates(callOf('globToolCall', { globPattern: pattern }), { denyRead: ['secrets/**'] }), `a glob tool of ${pattern}`);
  }
  t.ok(violates(callOf('globToolCall', { globPattern: '**/.github/workflows/*' }), { denyRead: ['.github/**'] }), 'a glob tool of **/.github/workflows/*');
  t.notOk(violates(callOf('globToolCall', { globPattern: '**/docs/**' }), { denyRead: ['secrets/**'] }), 'a glob tool of **/docs/**');
  t.same(records(runCore(callOf('globToolCall', { targetDirectory: '.', globPattern: 'src/**/secrets/*' })).out)[0]!.searched, ['.', './src', './src/secrets']);
  // With no absolute cwd, an absolute path is tried from each of its directories, its root among them: the project may be `/`.
  for (const cwd of [undefined, 'app']) {
    t.ok(violates(oneCall('write', '/.github/workflows/ci.yml', cwd), { denyWrite: ['.github/**'] }), `a write of /.github/workflows/ci.yml, cwd ${cwd}`);
    t.ok(violates(oneCall('read', '/secrets/k', cwd), { denyRead: ['secrets/**'] }), `a read of /secrets/k, cwd ${cwd}`);
  }
  // A glob's group of one is read as its alternative too (as a grep's glob is), and as minimatch reads it.
  for (const p of ['.github/ci.yml', '{.github}/ci.yml']) t.ok(violates(oneCall('write', p, '/r'), { denyWrite: ['{.github}/**'] }), `{.github}/** denies ${p}`);
  t.ok(violates(oneCall('read', 'config/.env', '/r'), { denyRead: ['config/{.env}'] }), 'config/{.env}');
  t.notOk(violates(oneCall('write', 'src/a.ts', '/r'), { denyWrite: ['{.github}/**'] }), 'but not another directory');
  t.notOk(violates(oneCall('write', '.github/ci.yml', '/r'), { requireWrite: ['{.github}/ci.yml'] }), 'a required write of {.github}/ci.yml is met');
  t.ok(violates(oneCall('write', 'src/ci.yml', '/r'), { requireWrite: ['{.github}/ci.yml'] }), 'by that file only');
  // An extglob group that matches once names its directories, as braces do: deleting one deletes what the glob names.
  for (const glob of ['@(.github)/workflows/**', '@(.gitlab|.github)/workflows/**', '**/@(.github)/workflows/**', 'x@(.git)hub/**']) {
    const p = glob.startsWith('x') ? 'x.github' : '.github';
    t.ok(violates(oneCall('delete', p, '/r'), { denyWrite: [glob] }), `deleting ${p} deletes what ${glob} names`);
  }
  t.notOk(violates(oneCall('delete', '.github', '/r'), { denyWrite: ['@(.gitlab)/workflows/**'] }), 'not another directory');
  t.notOk(violates(oneCall('delete', '.github', '/r'), { denyWrite: ['\\@(.github)/workflows/**'] }), 'nor an escaped @');
});

t.test('review fixes: a `**` within a name, globs ending in `/**` twice, many `**` parts, a directory named by a pattern of its name, groups of one nested', async (t) => {
  const cwd = '/r';
  // A `**` within a name is a `*`, as minimatch reads it: what it matches, and what lies under it, denied.
  t.ok(violates(oneCall('write', '.github/workflows/ci.yml', cwd), { denyWrite: ['.github**'] }), '.github**');
  t.ok(violates(oneCall('read', 'secrets-prod/a', cwd), { denyRead: ['secrets**'] }), 'secrets**');
  t.ok(violates(oneCall('read', 'secrets/abc/f', cwd), { denyRead: ['secrets/a**'] }), 'secrets/a**');
  t.notOk(violates(oneCall('read', 'src/a', cwd), { denyRead: ['secrets**'] }), 'not another directory');
  // `secrets/**/**` and `secrets/**/` name the directory, as `secrets/**` does: searching it reads them.
  for (const glob of ['secrets/**/**', 'secrets/**/', 'secrets/**/**/**']) {
    t.ok(violates(callOf('lsToolCall', { path: 'secrets' }, cwd), { denyRead: [glob] }), `an ls of secrets, ${glob}`);
  }
  t.ok(violates(callOf('lsToolCall', {}, cwd), { denyRead: ['/r/**/**'] }), 'an ls of the project, /r/**/**');
  // A grep's glob and a glob call's pattern: `**` parts one after another are one; past four others, what they read is not known.
  for (const glob of ['**/**/**/**/**/secrets/*', '**/a/**/b/**/c/**/d/**/secrets/*']) {
    t.ok(violates(callOf('grepToolCall', { pattern: 'x', path: '.', glob }, cwd), { denyRead: ['secrets/**'] }), `a grep of ${glob}`);
    t.ok(violates(callOf('globToolCall', { globPattern: glob, targetDirectory: '.' }, cwd), { denyRead: ['secrets/**'] }), `a glob call of ${glob}`);
  }
  t.notOk(violates(callOf('grepToolCall', { pattern: 'x', path: '.', glob: '**/**/**/**/**/docs/*' }, cwd), { denyRead: ['secrets/**'] }), 'a grep of docs');
  const cut = runCore(callOf('grepToolCall', { pattern: 'x', path: '.', glob: '**/a/**/b/**/c/**/d/**/docs/*' }, cwd), { denyRead: ['secrets/**'] }).violations;
  t.same(cut.map((v) => v.check), ['--deny-read'], 'five `**` parts apart: not known, so not cleared');
  // Deleting a directory a glob names by a pattern of its name, where it starts or after a `**`; not one any name matches.
  for (const [p, glob] of [
    ['.github', '.githu[b]/ci/**'],
    ['.github', '[.]github/ci/**'],
    ['.github', '?(.github)/ci/**'],
    ['.github', '+(.github)/ci/**'],
    ['{.github}', '{.github}/ci/**'],
    ['conf.d', '*.d/x'],
    ['app/[id]', '**/[[]id[]]/page.tsx'],
    ['app/.github', '**/.githu[b]/workflows/**'],
    ['/r/.github', '/r/.githu[b]/ci/**'],
  ]) {
    t.ok(violates(oneCall('delete', p!, cwd), { denyWrite: [glob!] }), `deleting ${p} deletes what ${glob} names`);
  }
  for (const [p, glob] of [
    ['.gitlab', '.githu[b]/ci/**'],
    ['src', '?*/ci/**'],
    ['src', '[!.]*/ci/**'],
    ['app/src', '**/.githu[b]/workflows/**'],
    ['src', '**/*/workflows/**'],
    ['/r/.gitlab', '/r/.githu[b]/ci/**'],
  ]) {
    t.notOk(violates(oneCall('delete', p!, cwd), { denyWrite: [glob!] }), `deleting ${p} is not known to delete what ${glob} names`);
  }
  // Groups of one nested in one another, in a grep's glob or a glob call's pattern, as ripgrep reads them.
  for (const glob of ['{{secrets}}/*', '{x,{{secrets}}}/*']) {
    t.ok(violates(callOf('grepToolCall', { pattern: 'x', path: '.', glob }, cwd), { denyRead: ['secrets/**'] }), `a grep of ${glob}`);
  }
  t.ok(violates(callOf('grepToolCall', { pattern: 'x', path: '.', glob: '{{.env}}' }, cwd), { denyRead: ['.env'] }), 'a grep of {{.env}}');
  t.ok(violates(callOf('globToolCall', { globPattern: '{{secrets}}/*' }, cwd), { denyRead: ['secrets/**'] }), 'a glob call of {{secrets}}/*');
  const deep = `${'{'.repeat(40)}docs${'}'.repeat(40)}/*`;
  t.same(runCore(callOf('grepToolCall', { pattern: 'x', path: '.', glob: deep }, cwd), { denyRead: ['secrets/**'] }).violations.length, 1, 'nested deeper than read: not cleared');
});

t.test('review fixes: `paths` as one path, an MCP call started and completed as other tools of its server, a rename in a Windows session, a glob call\'s pattern there, an MCP server\'s grep and glob, a key given twice in an MCP call\'s arguments', async (t) => {
  const fn = (name: string, args: Record<string, unknown>, cwd = '/r') => callOf('function', args, cwd, name);
  // `paths` names one path, as a list of one does.
  t.ok(violates(fn('frob', { paths: 'secrets/k' }), { denyRead: ['secrets/**'] }), 'a function of paths: "secrets/k"');
  t.ok(violates(callOf('grepToolCall', { pattern: 'x', paths: 'secrets' }, '/r'), { denyRead: ['secrets/**'] }), 'a grep of paths: "secrets"');
  const mcp = (toolName: string, args: unknown) => callOf('mcpToolCall', { name: 'fs', toolName, args }, '/r');
  t.ok(violates(mcp('read_file', { paths: 'secrets/k' }), { denyRead: ['secrets/**'] }), 'an MCP call of paths: "secrets/k"');
  // An MCP call started as one tool of its server and completed as another: checked as each.
  const ev = (subtype: string, toolName: string, args: unknown, result = false) =>
    JSON.stringify({ type: 'tool_call', subtype, call_id: 'c1', tool_call: { mcpToolCall: { args: { name: 'fs', toolName, args }, ...(result ? { result: { success: {} } } : {}) } }, session_id: 's' });
  const init = JSON.stringify({ type: 'system', subtype: 'init', session_id: 's', cwd: '/r' });
  const both = (started: string, startArgs: unknown, completed: string, args: unknown) => [init, ev('started', started, startArgs), ev('completed', completed, args, true)].join('\n') + '\n';
  const swapped = both('delete_directory', { path: '.github' }, 'read_file', { path: '.github' });
  t.same(runCore(swapped, { denyWrite: ['.github/workflows/**'] }).violations.map((v) => v.check), ['--deny-write'], 'a delete started, a read completed');
  t.same(runCore(swapped, { denyTool: ['delete_directory'] }).violations.map((v) => v.check), ['--deny-tool'], '--deny-tool of the started one');
  const startedWrite = both('write_file', {}, 'read_file', { path: 'a' });
  t.ok(violates(startedWrite, { denyTool: ['write_file'] }), 'a write_file started with no arguments: --deny-tool');
  t.ok(violates(startedWrite, { denyWrite: ['secrets/**'] }), 'and --deny-write, its paths not known');
  t.notOk(violates(both('read_file', { path: 'a' }, 'read_file', { path: 'a' }), { denyTool: ['write_file'] }), 'the same tool both times');
  // A rename given a new name in a Windows session: beside the file, after its last backslash.
  const renamed = runCore(fn('rename_file', { path: 'config\\tmp.yml', new_name: 'prod.yml' }, 'C:\\r'), { denyWrite: ['config/prod.yml'] });
  t.same(records(renamed.out)[0]!.written, ['config\\tmp.yml', 'config\\prod.yml']);
  t.equal(renamed.violations.length, 1, '--deny-write config/prod.yml');
  t.ok(violates(fn('rename_file', { path: 'config\\tmp.yml', new_name: 'prod.yml' }, 'C:\\r'), { requireWrite: ['prod.yml'] }), '--require-write prod.yml is not met');
  // A new name that is a path: from the cwd, and beside the file.
  t.same(records(runCore(fn('rename_file', { path: 'config/tmp.yml', new_name: './prod.yml' })).out)[0]!.written, ['config/tmp.yml', './prod.yml', 'config/./prod.yml']);
  t.same(records(runCore(fn('rename_file', { path: 'config/tmp.yml', new_name: '/etc/prod.yml' })).out)[0]!.written, ['config/tmp.yml', '/etc/prod.yml'], 'one from a root: where it says');
  // A glob call's pattern with backslashes in a Windows session: they separate.
  for (const globPattern of ['secrets\\*', '**\\secrets\\**']) {
    t.ok(violates(callOf('globToolCall', { targetDirectory: 'C:\\r', globPattern }, 'C:\\r'), { denyRead: ['secrets/**'] }), `a glob call of ${globPattern}, Windows`);
    t.ok(violates(callOf('globToolCall', { globPattern }, 'C:\\r'), { denyRead: ['secrets/**'] }), `a glob call of ${globPattern} in the project, Windows`);
  }
  t.notOk(violates(callOf('globToolCall', { globPattern: 'docs\\*' }, 'C:\\r'), { denyRead: ['secrets/**'] }), 'of another directory');
  t.notOk(violates(callOf('globToolCall', { globPattern: '\\{secrets\\}/*' }, '/r'), { denyRead: ['secrets/**'] }), 'in a POSIX session an escape');
  // An MCP server's grep reads what its own glob names; its glob call searches the directory its pattern starts with.
  t.ok(violates(mcp('grep', { path: '.', pattern: 'KEY', glob: '**/.env' }), { denyRead: ['**/.env'] }), 'an MCP grep of glob **/.env');
  t.ok(violates(mcp('grep_search', { query: 'KEY', include_pattern: '.env' }), { denyRead: ['**/.env'] }), 'an MCP grep_search of include_pattern .env');
  t.ok(violates(mcp('glob', { pattern: 'secrets/*' }), { denyRead: ['secrets/**'] }), 'an MCP glob of secrets/*');
  t.notOk(violates(mcp('grep', { path: '.', pattern: 'KEY', glob: '*.ts' }), { denyRead: ['**/.env'] }), 'an MCP grep of other files');
  // A key given twice in an MCP call's arguments as JSON text: both values count, as of a function call's.
  t.ok(violates(mcp('read_file', '{"path":".env","path":"README.md"}'), { denyRead: ['**/.env'] }), 'path given twice, .env first');
  t.ok(violates(mcp('read_file', '{"path":"README.md","path":".env"}'), { denyRead: ['**/.env'] }), 'and last');
});

t.test('review fixes: a tool call event cut before its tool, glued after one `--tool` leaves out; a move of `path` to `destination`; an MCP write meeting --require-write', async (t) => {
  const init = JSON.stringify({ type: 'system', subtype: 'init', session_id: 's', cwd: '/r' });
  const read = JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: 'a', session_id: 's', tool_call: { readToolCall: { args: { path: 'README.md' }, result: { success: {} } } } });
  // Cut anywhere before its `tool_call` object opens: a call of no known kind, which no `--tool` leaves out.
  const passes = (input: string): boolean => runCore(input, { tools: ['write'], denyWrite: ['.github/**'] }).core.passed;
  for (const cut of ['"tool_call":', '"call_id":"b",', '"call_id":"b","timestamp_ms":17', '"call_id":"b"']) {
    t.notOk(passes(`${init}\n${read}{"type":"tool_call","subtype":"started",${cut}\n`), `cut after ${cut}`);
  }
  t.ok(passes(`${init}\n${read}\n`), 'the read alone passes');
  // Not a tool call event: what it may name is not a call.
  t.ok(passes(`${init}\n${read}{"type":"user","message":{"content":[{"type":"text","text":"x"\n`), 'a prompt cut short');
  // A move naming the file under `path` and where it goes under `destination`: the path is the one moved away.
  const fn = (name: string, args: Record<string, unknown>) => callOf('function', args, '/r', name);
  for (const [from, to] of [['path', 'destination'], ['file', 'to'], ['file_path', 'dest'], ['target_file', 'target'], ['filePath', 'new_path']]) {
    const call = fn('move_file', { [from!]: 'CHANGELOG.md', [to!]: 'old.md' });
    t.ok(violates(call, { requireWrite: ['CHANGELOG.md'] }), `a move of ${from} to ${to} does not write what it moves`);
    t.notOk(violates(call, { requireWrite: ['old.md'] }), `and writes its ${to}`);
    t.ok(violates(call, { denyWrite: ['CHANGELOG.md'] }), 'moving a denied file away fails --deny-write');
  }
  t.notOk(violates(fn('rename_file', { path: 'a.md', new_name: 'b.md' }), { requireWrite: ['b.md'] }), 'a rename given a new name as before');
  // An MCP server's write meets --require-write, as the agent's own does; its read does not.
  const mcp = (toolName: string, args: unknown) => callOf('mcpToolCall', { name: 'fs', toolName, args }, '/r');
  t.notOk(violates(mcp('write_file', { path: 'CHANGELOG.md', content: 'x' }), { requireWrite: ['CHANGELOG.md'] }), 'an MCP write_file');
  t.notOk(violates(mcp('edit_file', { path: 'CHANGELOG.md', edits: [] }), { requireWrite: ['CHANGELOG.md'] }), 'an MCP edit_file');
  t.ok(violates(mcp('read_file', { path: 'CHANGELOG.md' }), { requireWrite: ['CHANGELOG.md'] }), 'not an MCP read_file');
  t.ok(violates(mcp('move_file', { source: 'CHANGELOG.md', destination: 'old.md' }), { requireWrite: ['CHANGELOG.md'] }), 'nor an MCP move away');
});

t.test('review fixes: a server\'s glob only reads, a POSIX rename keeps its backslashes, one line for a line two views share, target_directories as one, an escape in a group of one, the reason of too many `**` parts', async (t) => {
  const mcp = (toolName: string, args: unknown, cwd = '/r') => callOf('mcpToolCall', { name: 'fs', toolName, args }, cwd);
  // A server's glob lists what its pattern names: a read, checked as the agent's own glob is, which writes nothing.
  const listed = mcp('glob', { pattern: 'secrets/*' });
  t.notOk(violates(listed, { noWrites: true }), 'no write: --no-writes');
  t.notOk(violates(listed, { denyWrite: ['**'] }), "no write: --deny-write '**'");
  t.ok(violates(listed, { denyRead: ['secrets/**'] }), 'a read of secrets');
  t.ok(violates(mcp('glob', { pattern: 'secrets\\*' }, 'C:\\proj'), { denyRead: ['secrets/**'] }), 'its backslashes separate in a Windows session');
  t.notOk(violates(mcp('glob', { pattern: '*.md' }), { denyRead: ['secrets/**'] }), 'of other files');
  // A rename in a POSIX session: a backslash is a character of the name.
  const renamed = runCore(callOf('renameToolCall', { path: 'a/b\\c.ts', new_name: 'x.ts' }, '/r'), { denyWrite: ['a/x.ts'] });
  t.same(records(renamed.out)[0]!.written, ['a/b\\c.ts', 'a/x.ts']);
  t.equal(renamed.violations.length, 1, '--deny-write a/x.ts');
  t.same(records(runCore(callOf('renameToolCall', { path: 'a/b.ts', new_name: 'C:\\x\\y' }, '/r')).out)[0]!.written, ['a/b.ts', 'a/C:\\x\\y'], 'a name, in a POSIX session');
  t.same(records(runCore(callOf('renameToolCall', { path: 'a\\b.ts', new_name: 'C:\\x\\y' }, 'C:\\r')).out)[0]!.written, ['a\\b.ts', 'C:\\x\\y'], 'a path from a drive, in a Windows one');
  // An MCP call started and completed as other tools of its server: a line both report once.
  const ev = (subtype: string, toolName: string, result = false) =>
    JSON.stringify({ type: 'tool_call', subtype, call_id: 'c1', tool_call: { mcpToolCall: { args: { name: 'fs', toolName, args: { path: 'a.ts' } }, ...(result ? { result: { success: {} } } : {}) } }, session_id: 's' });
  const init = JSON.stringify({ type: 'system', subtype: 'init', session_id: 's', cwd: '/r' });
  const both = [init, ev('started', 'read_file'), ev('completed', 'list_directory', true)].join('\n') + '\n';
  t.same(runCore(both, { noWrites: true }).violations.map((v) => formatViolation(v)), ['in:2: --no-writes: mcp a.ts (call c1, success)']);
  // Cursor's codebase_search given one directory, not a list.
  t.ok(violates(callOf('function', { query: 'x', target_directories: 'secrets' }, '/r', 'codebase_search'), { denyRead: ['secrets/**'] }), 'target_directories: "secrets"');
  // A group of one holding an escape.
  t.ok(violates(callOf('grepToolCall', { pattern: 'x', glob: '{secre\\ts}/*' }, '/r'), { denyRead: ['secrets/**'] }), 'a grep of {secre\\ts}/*');
  t.ok(violates(callOf('globToolCall', { globPattern: '{secre\\ts}/*' }, '/r'), { denyRead: ['secrets/**'] }), 'a glob call of {secre\\ts}/*');
  // Too many `**` parts apart: said so.
  const stars = 'a/**/b/**/c/**/d/**/e/**/*.ts';
  for (const call of [callOf('globToolCall', { globPattern: stars }, '/r'), callOf('grepToolCall', { pattern: 'x', glob: stars }, '/r')]) {
    const [v] = runCore(call, { denyRead: ['**/.env'] }).violations;
    t.match(formatViolation(v!), /, whose glob has more `\*\*` parts apart than the audit tries \(4\) \(call c, success\)$/);
  }
});

t.test('review fixes: a second tool of one tool_call object under any key, paths picked out of arguments that are no object, a required write in a POSIX session', async (t) => {
  const init = JSON.stringify({ type: 'system', subtype: 'init', session_id: 's', cwd: '/r' });
  const event = (subtype: string, toolCall: unknown) => JSON.stringify({ type: 'tool_call', subtype, call_id: 'c1', session_id: 's', tool_call: toolCall });
  const read = { readToolCall: { args: { path: 'a' }, result: { success: {} } } };
  // Beside a read, a write under another key: checked as each.
  for (const key of ['write_file', 'writetoolcall', 'write_tool_call', 'writeFile']) {
    const input = `${init}\n${event('completed', { ...read, [key]: { args: { path: '.github/x' }, result: { success: {} } } })}\n`;
    t.ok(violates(input, { denyWrite: ['.github'] }), `${key} beside readToolCall: --deny-write`);
    t.ok(violates(input, { noWrites: true }), `${key}: --no-writes`);
  }
  t.ok(violates(`${init}\n${event('completed', { ...read, writeToolCall: 'x' })}\n`, { noWrites: true }), 'a writeToolCall given a string, beside');
  t.notOk(violates(`${init}\n${event('completed', { ...read, metadata: { version: 1 } })}\n`, { noWrites: true }), 'another object, holding no args nor result, is no tool');
  // In a sub-agent's step too.
  const step = { toolCall: { ...read, write_file: { args: { path: '.github/x' }, result: { success: {} } } } };
  const task = event('completed', { taskToolCall: { args: { prompt: 'p' }, result: { success: { conversationSteps: [step] } } } });
  t.ok(violates(`${init}\n${task}\n`, { denyWrite: ['.github'] }), "a sub-agent's step naming two tools");
  // Arguments that are no object: the paths their text names, under any key the audit reads, picked out.
  const fn = (name: string, text: string) => `${init}\n${event('completed', { function: { name, arguments: text }, result: { success: {} } })}\n`;
  t.ok(violates(fn('fetch_mcp_resource', '{"server":"fs","uri":"file:///r/.env",'), { denyRead: ['.env'] }), 'a uri of text cut short');
  t.ok(violates(fn('foo', '{"downloadPath":".github/x",'), { denyWrite: ['.github'] }), 'downloadPath');
  t.ok(violates(fn('foo', '{"dir":".github","x":'), { denyWrite: ['.github'] }), 'dir');
  t.ok(violates(fn('foo', '{"paths":["a",".github/x"'), { denyWrite: ['.github'] }), 'a list of paths cut short');
  t.ok(violates(fn('foo', '[{"path":".github/x"}]'), { denyWrite: ['.github'] }), 'a list of argument objects');
  t.notOk(violates(fn('foo', '[{"path":"src/a.ts"}]'), { denyWrite: ['.github'] }), 'of other paths');
  // --require-write in a POSIX session: a backslash is part of a name, not a separator; in a Windows one it separates.
  const wrote = (p: string, cwd: string) => `${JSON.stringify({ type: 'system', subtype: 'init', session_id: 's', cwd })}\n${event('completed', { writeToolCall: { args: { path: p }, result: { success: {} } } })}\n`;
  for (const p of ['x\\..\\CHANGELOG.md', '\\\\?\\CHANGELOG.md', '\\??\\CHANGELOG.md']) {
    t.ok(violates(wrote(p, '/r'), { requireWrite: ['CHANGELOG.md'] }), `${p} is not CHANGELOG.md in /r`);
  }
  t.notOk(violates(wrote('x\\..\\CHANGELOG.md', 'C:\\r'), { requireWrite: ['CHANGELOG.md'] }), 'but it is in C:\\r');
  t.ok(violates(wrote('x\\..\\.github\\ci.yml', '/r'), { denyWrite: ['.github'] }), 'the deny checks read it both ways');
});

t.test('review fixes: a move away named under `paths` or a file URL, a Windows rename in a sub-agent or beside another tool, a server glob from a root or of files anywhere, a type cut short', async (t) => {
  const init = (cwd = '/r') => JSON.stringify({ type: 'system', subtype: 'init', session_id: 's', cwd });
  const event = (toolCall: unknown, subtype = 'completed') => JSON.stringify({ type: 'tool_call', subtype, call_id: 'c1', session_id: 's', tool_call: toolCall });
  const move = (args: Record<string, unknown>) => `${init()}\n${event({ moveFileToolCall: { args, result: { success: {} } } })}\n`;
  for (const args of [{ paths: 'docs/a.md', target: 'tmp/a.md' }, { paths: ['docs/a.md'], destination: 'tmp/a.md' }, { uri: 'file:///r/docs/a.md', destination: 'tmp/a.md' }]) {
    t.ok(violates(move(args), { requireWrite: ['docs/a.md'] }), `${JSON.stringify(args)}: what it moves away meets no --require-write`);
    t.notOk(violates(move(args), { requireWrite: ['tmp/a.md'] }), 'where it puts it does');
  }
  // A Windows session's rename, in a sub-agent's step and beside another tool.
  const rename = { renameFileToolCall: { args: { path: 'C:\\proj\\config\\a.yml', new_name: 'secret.yml' }, result: { success: {} } } };
  const task = event({ taskToolCall: { args: { prompt: 'p' }, result: { success: { conversationSteps: [{ toolCall: rename }] } } } });
  t.ok(violates(`${init('C:\\proj')}\n${task}\n`, { denyWrite: ['config/secret*'] }), "a sub-agent's rename");
  const beside = event({ readToolCall: { args: { path: 'a' }, result: { success: {} } }, ...rename });
  t.ok(violates(`${init('C:\\proj')}\n${beside}\n`, { denyWrite: ['config/secret*'] }), 'a rename beside a read');
  // A server's glob: from a root, as the agent's own; of files anywhere in the project, a search of it, as the agent's own.
  const glob = (pattern: string, cwd = '/repo') => `${init(cwd)}\n${event({ mcpToolCall: { args: { name: 'fs', toolName: 'glob', args: { pattern } }, result: { success: {} } } })}\n`;
  t.ok(violates(glob('/repo/secrets/*'), { denyRead: ['secrets/**'] }), 'a server glob of /repo/secrets/*');
  t.notOk(violates(glob('**/*.pem'), { denyRead: ['**/*.pem'] }), 'a server glob of **/*.pem lists, as the agent\'s own does');
  t.ok(violates(`${init('/repo')}\n${event({ grepToolCall: { args: { pattern: 'x', glob: '/repo/secrets/*' }, result: { success: {} } } })}\n`, { denyRead: ['secrets/**'] }), 'a grep of a glob from a root');
  // A tool call event cut in its type, glued after a call --tool leaves out.
  const passes = (input: string): boolean => runCore(input, { tools: ['write'], noWrites: true }).core.passed;
  const read = event({ readToolCall: { args: { path: 'a' }, result: { success: {} } } });
  for (const cut of ['"tool_cal', '"tool_', '"']) t.notOk(passes(`${init()}\n${read}{"type":${cut}\n`), `cut at {"type":${cut}`);
  t.ok(passes(`${init()}\n${read}{"type":"assis\n`), 'cut in another type');
});

t.test('review fixes: a patch name holding a CR or U+2028, `paths` in a list of changes, a Windows name of dots and spaces, a delete whose result names the directory with no cwd', async (t) => {
  const init = (cwd?: string) => JSON.stringify({ type: 'system', subtype: 'init', session_id: 's', ...(cwd === undefined ? {} : { cwd }) });
  const event = (toolCall: unknown) => JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: 'c1', session_id: 's', tool_call: toolCall });
  const fn = (name: string, args: unknown, cwd = '/r') => `${init(cwd)}\n${event({ function: { name, arguments: JSON.stringify(args) }, result: { success: {} } })}\n`;
  // The patch format splits lines at LF alone.
  for (const sep of ['\r', '\u2028', '\u2029']) {
    const input = `*** Begin Patch\n*** Add File: x${sep}/d\n+hi\n*** Add File: x${sep}/../.env\n+A=1\n*** End Patch\n`;
    t.ok(violates(fn('apply_patch', { input }), { denyWrite: ['**/.env'] }), `a name holding U+${sep.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  const crlf = runCore(fn('apply_patch', { input: '*** Begin Patch\r\n*** Update File: src/a.ts\r\n@@\r\n-a\r\n+b\r\n*** End Patch\r\n' }));
  t.same(records(crlf.out)[0]!.edited, ['src/a.ts'], 'a CRLF patch: its names without their CR');
  // `paths` in an item of a list of changes.
  for (const key of ['edits', 'files', 'changes', 'operations']) {
    t.ok(violates(fn('edit_files', { [key]: [{ path: 'README.md' }, { paths: ['.github/ci.yml'] }] }), { denyWrite: ['.github'] }), `${key}: [{paths}]`);
  }
  // A Windows name of dots and spaces alone: the directory itself, or its parent.
  const del = (p: string, cwd = 'C:\\proj') => `${init(cwd)}\n${event({ deleteToolCall: { args: { path: p }, result: { success: {} } } })}\n`;
  for (const p of ['...', '. ', '.. ']) t.ok(violates(del(p), { denyWrite: ['**/.env'] }), `deleting ${JSON.stringify(p)}: the project or above`);
  for (const p of ['.github\\...', '.github\\ ', 'C:\\proj\\.github\\...']) t.ok(violates(del(p), { denyWrite: ['.github/workflows/**'] }), `deleting ${p}: .github`);
  t.notOk(violates(del('src\\...'), { denyWrite: ['.github/workflows/**'] }), 'deleting src\\...: src');
  // With no cwd, a delete whose result names the directory absolute where its arguments name it relative.
  const noCwd = `${event({ deleteToolCall: { args: { path: 'workflows' }, result: { success: { path: '/repo/.github/workflows' } } } })}\n`;
  const v = runCore(noCwd, { denyWrite: ['.github/workflows/*.yml'] }).violations;
  t.same(v.map((x) => [x.check, x.path]), [['--deny-write', 'workflows']], 'reported as the arguments named it');
});

t.test('review fixes: arguments that are a list cannot clear the checks; a grep glob from a root, under the directory searched and as it is; a drive-rooted pattern; a sub-agent step\'s second tool said so', async (t) => {
  const init = (cwd = '/repo') => JSON.stringify({ type: 'system', subtype: 'init', session_id: 's', cwd });
  const event = (toolCall: unknown, id = 'c1') => JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: id, session_id: 's', tool_call: toolCall });
  const listed = `${init()}\n${event({ function: { name: 'read_file', arguments: '[{"path":"a.ts"},{"path":".env"}]' }, result: { success: {} } })}\n`;
  t.ok(violates(listed, { denyRead: ['**/.env'] }), 'a read given a list');
  t.ok(violates(listed, { denyRead: ['secrets/**'] }), 'whatever the glob: the list may name more');
  const mcpListed = `${init()}\n${event({ mcpToolCall: { args: { name: 'fs', toolName: 'write_file', args: '[{"path":"a"}]' }, result: { success: {} } } })}\n`;
  t.ok(violates(mcpListed, { denyWrite: ['.github/**'] }), "an MCP call's own arguments a list");
  // A grep's glob from a root: ripgrep roots it at the directory searched; read as the path it names too.
  const grep = (glob: string, path?: string, cwd?: string) => `${init(cwd)}\n${event({ grepToolCall: { args: { pattern: 'x', glob, ...(path === undefined ? {} : { path }) }, result: { success: {} } } })}\n`;
  t.ok(violates(grep('/secrets/*', 'src'), { denyRead: ['src/secrets/**'] }), '/secrets/* in src');
  t.ok(violates(grep('/repo/secrets/*'), { denyRead: ['secrets/**'] }), '/repo/secrets/* in /repo');
  t.ok(violates(grep('C:\\proj\\secrets\\*', undefined, 'C:\\proj'), { denyRead: ['secrets/**'] }), 'C:\\proj\\secrets\\* in C:\\proj');
  // A glob call's pattern from a drive's root.
  t.ok(violates(`${init('C:\\proj')}\n${event({ globToolCall: { args: { globPattern: 'C:/proj/secrets/*' }, result: { success: {} } } })}\n`, { denyRead: ['secrets/**'] }), 'a glob of C:/proj/secrets/*');
  t.ok(violates(`${init('C:\\proj')}\n${event({ mcpToolCall: { args: { name: 'fs', toolName: 'glob', args: { pattern: 'C:/proj/secrets/*' } }, result: { success: {} } } })}\n`, { denyRead: ['secrets/**'] }), "a server's glob of C:/proj/secrets/*");
  // A server's glob lists the directories its pattern starts with, as the agent's own: of files anywhere, no read.
  t.notOk(violates(`${init()}\n${event({ mcpToolCall: { args: { name: 'fs', toolName: 'glob', args: { pattern: '**/.env' } }, result: { success: {} } } })}\n`, { denyRead: ['**/.env'] }), "a server's glob of **/.env");
  // A sub-agent's step naming two tools: the second's line says whose sub-agent made it.
  const step = { toolCall: { readToolCall: { args: { path: 'a' }, result: { success: {} } }, write_file: { args: { path: '.github/ci.yml' }, result: { success: {} } } } };
  const task = event({ taskToolCall: { args: { prompt: 'p' }, result: { success: { conversationSteps: [step] } } } }, 't1');
  const [v] = runCore(`${init()}\n${task}\n`, { denyWrite: ['.github'] }).violations;
  t.match(formatViolation(v!), /by the sub-agent of call t1/);
});

t.test('a glob call given several directories lists its pattern\'s directory in each', async (t) => {
  const glob = (args: Record<string, unknown>) => callOf('globToolCall', { globPattern: 'secrets/*', ...args }, '/r');
  for (const args of [{ target_directories: ['src', 'config'] }, { paths: ['src', 'config'] }, { path: ['src', 'config'] }]) {
    t.ok(violates(glob(args), { denyRead: ['config/secrets/**'] }), `in the second of ${JSON.stringify(args)}`);
    t.ok(violates(glob(args), { denyRead: ['src/secrets/**'] }), `in the first of ${JSON.stringify(args)}`);
    t.notOk(violates(glob(args), { denyRead: ['lib/secrets/**'] }), `not in one not given: ${JSON.stringify(args)}`);
  }
  const served = callOf('mcpToolCall', { name: 'fs', toolName: 'glob', args: { pattern: 'secrets/*', paths: ['src', 'config'] } }, '/r');
  t.ok(violates(served, { denyRead: ['config/secrets/**'] }), "a server's glob too");
  // Past as many directories as a glob's alternatives are tried, what it lists is not all known: the deny checks fail.
  const many = Array.from({ length: 1001 }, (_, i) => `d${i}`);
  t.ok(violates(glob({ target_directories: many }), { denyRead: ['nowhere/**'] }), '1,001 directories');
  t.notOk(violates(glob({ target_directories: many.slice(0, 1000) }), { denyRead: ['nowhere/**'] }), '1,000 directories');
});

t.test('arguments cut short: a list given to a key read (a command\'s words, a path list) still counts', async (t) => {
  const call = (name: string, text: string) =>
    [{ type: 'system', subtype: 'init', session_id: 's', cwd: '/r' }, { type: 'tool_call', subtype: 'completed', call_id: 'c', session_id: 's', tool_call: { function: { name, arguments: text }, result: { success: {} } } }]
      .map((e) => JSON.stringify(e))
      .join('\n') + '\n';
  t.ok(violates(call('developer__shell', '{"command": ["rm", "-rf", "/"], "timeout": tru'), { denyTool: ['shell'] }), 'a command given as its words');
  t.ok(violates(call('put_file', '{"path": [".github/ci.yml"], "content": "x'), { denyWrite: ['.github/'] }), 'a path list');
  t.notOk(violates(call('put_file', '{"path": ["docs/a.md"], "content": "x'), { denyWrite: ['.github/'] }), 'a path list elsewhere');
});

t.test("other agents' tools by their names and keys: Gemini CLI, Cline and Roo Code, Continue, Windsurf, Codex", async (t) => {
  const fn = (name: string, args: Record<string, unknown>) => callOf('function', args, '/r', name);
  // Writes and edits: they fail --deny-write and meet --require-write as the agent's own.
  for (const [name, args] of [
    ['write_to_file', { path: '.github/ci.yml', content: 'x' }],
    ['write_to_file', { TargetFile: '.github/ci.yml', CodeContent: 'x' }],
    ['replace', { file_path: '.github/ci.yml', old_string: 'a', new_string: 'b' }],
    ['replace_in_file', { path: '.github/ci.yml', diff: 'x' }],
    ['apply_diff', { path: '.github/ci.yml', diff: 'x' }],
    ['insert_content', { path: '.github/ci.yml', line: 1, content: 'x' }],
    ['search_and_replace', { path: '.github/ci.yml', search: 'a', replace: 'b' }],
    ['create_new_file', { filepath: '.github/ci.yml', contents: 'x' }],
    ['edit_existing_file', { filepath: '.github/ci.yml', changes: 'x' }],
    ['single_find_and_replace', { filepath: '.github/ci.yml', old_string: 'a', new_string: 'b' }],
  ] as const) {
    t.ok(violates(fn(name, args), { denyWrite: ['.github/**'] }), `${name} ${Object.keys(args)[0]}: --deny-write`);
    t.notOk(violates(fn(name, args), { requireWrite: ['.github/ci.yml'] }), `${name}: meets --require-write`);
  }
  // Reads and searches, by the keys they name paths and filters with.
  t.ok(violates(fn('read_file', { absolute_path: '/r/.env' }), { denyRead: ['**/.env'] }), "Gemini's absolute_path");
  t.ok(violates(fn('view_file', { AbsolutePath: '/r/.env' }), { denyRead: ['**/.env'] }), "Windsurf's AbsolutePath");
  t.ok(violates(fn('read_many_files', { paths: ['.env'] }), { denyRead: ['**/.env'] }), 'read_many_files');
  t.ok(violates(fn('list_directory', { dir_path: 'secrets' }), { denyRead: ['secrets/**'] }), "Gemini's dir_path");
  t.ok(violates(fn('ls', { dirPath: 'secrets' }), { denyRead: ['secrets/**'] }), "Continue's dirPath");
  t.ok(violates(fn('list_dir', { DirectoryPath: 'secrets' }), { denyRead: ['secrets/**'] }), "Windsurf's DirectoryPath");
  t.ok(violates(fn('grep_search', { Query: 'key', SearchPath: 'secrets' }), { denyRead: ['secrets/**'] }), "Windsurf's SearchPath");
  t.ok(violates(fn('find_by_name', { Pattern: '*', SearchDirectory: 'secrets' }), { denyRead: ['secrets/**'] }), "Windsurf's SearchDirectory");
  t.ok(violates(fn('search_files', { path: '.', regex: 'key', file_pattern: '*.env' }), { denyRead: ['**/.env'] }), "Cline's file_pattern");
  t.ok(violates(fn('search_file_content', { pattern: 'key', include: '**/*.pem' }), { denyRead: ['**/*.pem'] }), "Gemini's include");
  t.ok(violates(fn('grep_search', { Query: 'key', SearchPath: '.', Includes: ['*.env'] }), { denyRead: ['**/.env'] }), "Windsurf's Includes");
  t.notOk(violates(fn('search_files', { path: '.', regex: 'key', file_pattern: '*.ts' }), { noWrites: true }), 'a search writes nothing');
  t.ok(violates(fn('list_files', { path: 'secrets' }), { denyRead: ['secrets/**'] }), "Cline's list_files");
  // Where a shell runs.
  const shell = (args: Record<string, unknown>) => records(runCore(fn('shell', args)).out)[0];
  t.match(shell({ command: ['make'], workdir: '/tmp' }), { command: 'make', working_directory: '/tmp' }, "Codex's workdir");
  t.match(shell({ CommandLine: 'make', Cwd: '/tmp' }), { command: 'make', working_directory: '/tmp' }, "Windsurf's Cwd");
});

t.test("Claude Code's tool calls: tool_use blocks started, tool_result blocks completed", async (t) => {
  const sid = 'c1';
  const assistant = (blocks: unknown[], more: Record<string, unknown> = {}) => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: blocks }, session_id: sid, ...more });
  const user = (blocks: unknown[], more: Record<string, unknown> = {}) => JSON.stringify({ type: 'user', message: { role: 'user', content: blocks }, session_id: sid, ...more });
  const use = (id: unknown, name: unknown, input: unknown) => ({ type: 'tool_use', id, name, input });
  const answer = (id: unknown, content: unknown, isError?: unknown) => ({ type: 'tool_result', tool_use_id: id, content, ...(isError === undefined ? {} : { is_error: isError }) });
  const input = [
    JSON.stringify({ type: 'system', subtype: 'init', cwd: '/home/u/p', session_id: sid }),
    assistant([{ type: 'text', text: 'On it.' }, use('w1', 'Write', { file_path: '/home/u/p/.github/ci.yml', content: 'on: push' }), use('e1', 'Edit', { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' })]),
    user([answer('e1', [{ type: 'text', text: 'String to replace not found' }, { type: 'text', text: 'in src/a.ts' }], true), answer('w1', 'File created')]),
    assistant([use('m1', 'mcp__filesystem__write_file', { path: 'docs/x.md', content: 'x' })]),
    user([answer('m1', [{ type: 'text', text: 'ok' }])]),
    assistant([use('b1', 'Bash', { command: 'rm -rf build', description: 'clean' })], { parent_tool_use_id: 'task1' }),
    user([answer('b1', 'Exit code 1', 1)], { parent_tool_use_id: 'task1' }),
    assistant([use(7, 'Read', '{"file_path": "notes.txt"}')]),
    user([answer(7, 'x')]),
    user([answer('ghost', 'done')]),
    assistant([use('p1', 'Glob', { pattern: 'src/**/*.ts' })]),
  ].join('\n');
  const records = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const { out, core } = runCore(input);
  const got = records(out);
  t.same(
    got.map((r) => [r.call_id, r.tool, r.kind, r.status, r.line]),
    [
      ['w1', 'Write', 'write', 'success', 2],
      ['m1', 'mcp__filesystem__write_file', 'mcp', 'success', 4],
      ['7', 'Read', 'read', 'success', 8],
      ['ghost', null, 'other', 'success', 10],
      ['e1', 'Edit', 'edit', 'error', 2],
      ['b1', 'Bash', 'shell', 'error', 6],
      ['p1', 'Glob', 'glob', 'pending', 11],
    ],
    "each call once, as its answer comes, those answered with an error at its run's result (here none: the end), pending ones last",
  );
  const byId = new Map(got.map((r) => [r.call_id, r]));
  t.same(byId.get('e1')!.edited, ['src/a.ts']);
  t.equal(byId.get('e1')!.reason, 'String to replace not found\nin src/a.ts', 'the reason: the text of its answer');
  t.same(byId.get('w1')!.written, ['/home/u/p/.github/ci.yml']);
  t.equal(byId.get('w1')!.events, 2);
  t.same([byId.get('m1')!.mcp_server, byId.get('m1')!.mcp_tool, byId.get('m1')!.touched], ['filesystem', 'write_file', ['docs/x.md']], "an MCP server's tool, named with its server");
  t.same([byId.get('b1')!.command, byId.get('b1')!.parent_call_id, byId.get('b1')!.reason], ['rm -rf build', 'task1', 'Exit code 1'], "a sub-agent's call");
  t.same(byId.get('7')!.read, ['notes.txt'], 'its input given as JSON text, its id as a number');
  t.same([byId.get('ghost')!.started, byId.get('ghost')!.events], [false, 1], 'an answer to a call never seen');
  t.ok(core.unknownCalls, 'which names no tool');
  t.same(byId.get('p1')!.searched, ['./src']);
  // Every size of chunk reads it the same.
  for (const size of [1, 7, 64]) t.equal(runCore(input, {}, size).out, out, `in chunks of ${size}`);

  // The checks: a failed edit may have acted, a write under .github is one, an MCP write meets --require-write.
  const checked = runCore(input, { denyWrite: ['.github', 'src/**'], requireWrite: ['docs/**'], denyTool: ['write_file', 'shell'] });
  t.same(
    checked.violations.map((v) => formatViolation(v)).sort(),
    [
      "in:2: --deny-tool 'write_file': Write /home/u/p/.github/ci.yml (call w1, success)",
      "in:2: --deny-write '.github': Write /home/u/p/.github/ci.yml (call w1, success)",
      "in:2: --deny-write 'src/**': Edit src/a.ts (call e1, error)",
      "in:4: --deny-tool 'write_file': mcp__filesystem__write_file docs/x.md (call m1, success)",
      "in:6: --deny-tool 'shell': Bash rm -rf build (call b1, by the sub-agent of call task1, error)",
    ],
    "a failed edit may have acted; write_file, a name of the audit's, is every write, the server's too",
  );
  t.equal(checked.core.passed, false);
  const required = runCore(input, { requireWrite: ['docs/**', '.github/**'] });
  t.same(required.violations, [], 'a write of each kind meets --require-write');
  t.equal(required.core.passed, false, 'but the answer to a call never seen is a call no check can clear');
  t.same(runCore(input, { denyTool: ['mcp__filesystem__write_file'] }).violations.length, 1, 'the tool denied by the name it is called by');
});

t.test('a tool named with its MCP server is an MCP call of that server, in either dialect', async (t) => {
  const line = JSON.stringify({
    type: 'tool_call',
    subtype: 'completed',
    call_id: 'f1',
    session_id: 's',
    tool_call: { function: { name: 'mcp__box__run_command', arguments: JSON.stringify({ command: 'make deploy', name: 'not the server' }) }, result: { success: {} } },
  });
  const { out, violations } = runCore(line, { denyTool: ['shell'] });
  const [rec] = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  t.same([rec!.kind, rec!.mcp_server, rec!.mcp_tool, rec!.command], ['mcp', 'box', 'run_command', 'make deploy']);
  t.equal(violations.length, 1, "--deny-tool shell counts a server's shell");
  t.equal(JSON.parse(runCore(line.replace('mcp__box__run_command', 'mcp__box')).out).kind, 'other', 'a name with no tool after its server is no such name');
});

t.test("Claude Code's calls the audit cannot read fail the checks; its tools' names as its permission rules write them", async (t) => {
  const init = JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 's' });
  const write = '{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/p/.env","content":"SEC';
  for (const [name, input] of [
    ['cut, glued after a line of 4,100 bytes', `${init}\n${JSON.stringify({ type: 'user', message: { role: 'user', content: 'x'.repeat(4100) }, session_id: 's' })}${write}\n`],
    ['cut, glued after a line of 100,000 bytes', `${init}\n${JSON.stringify({ type: 'user', message: { role: 'user', content: 'x'.repeat(100_000) }, session_id: 's' })}${write}\n`],
    ['written over several lines, cut after its type', `${init}\n{\n  "type": "assistant",\n  "message": {\n    "content": [\n      {\n        "type": "tool_use",\n        "id": "t1",\n`],
  ] as const) {
    const { core } = runCore(input, { denyWrite: ['.env'] });
    t.equal(core.passed, false, `${name}: the checks cannot pass`);
  }
  const cutText = `${init}\n${JSON.stringify({ type: 'user', message: { role: 'user', content: 'x'.repeat(4100) }, session_id: 's' })}{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Wri\n`;
  t.equal(runCore(cutText, { denyWrite: ['.env'] }).core.passed, true, 'a message cut in its text, with no tool_use block, is no call');

  const calls = `${init}\n${JSON.stringify({
    type: 'assistant',
    message: {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'k1', name: 'Skill', input: { skill: 'pdf' } },
        { type: 'tool_use', id: 'k2', name: 'SlashCommand', input: { command: '/deploy' } },
        { type: 'tool_use', id: 'k3', name: 'mcp__github__create_issue', input: { title: 'x' } },
      ],
    },
    session_id: 's',
  })}\n`;
  const denied = (names: string[]) => runCore(calls, { denyTool: names }).violations.map((v) => formatViolation(v));
  t.same(
    denied(['Bash']),
    ["in:2: --deny-tool 'Bash': Skill (call k1, pending)", "in:2: --deny-tool 'Bash': SlashCommand (call k2, pending)"],
    "a skill or a slash command may run its file's shell lines as it loads",
  );
  t.same(denied(['mcp__github']), ["in:2: --deny-tool 'mcp__github': mcp__github__create_issue (call k3, pending)"], 'a whole server');
  t.same(denied(['mcp__github__*']), ["in:2: --deny-tool 'mcp__github__*': mcp__github__create_issue (call k3, pending)"], 'every tool of a server');
  t.same(denied(['mcp__gitlab', 'mcp__git']), [], 'another server');
  // However spelt, given a command or not.
  const skill = (name: string, args: string) =>
    runCore(JSON.stringify({ type: 'tool_call', subtype: 'completed', call_id: 'f', session_id: 's', tool_call: { function: { name, arguments: args }, result: { success: {} } } }), {
      denyTool: ['shell'],
    }).violations.length;
  t.same([skill('Skill', '{"command":"make deploy"}'), skill('skill', '{}'), skill('slash_command', '{"name":"x"}'), skill('Skills', '{}')], [1, 1, 1, 0]);
});

t.test("Claude Code's own error tags are left out of a call's reason", async (t) => {
  const answer = (content: unknown) =>
    [
      JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 'r', name: 'Read', input: { file_path: 'a.ts' } }] }, session_id: 's' }),
      JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'r', content, is_error: true }] }, session_id: 's' }),
    ].join('\n');
  const reason = (content: unknown) => (JSON.parse(runCore(answer(content)).out) as { reason?: string }).reason;
  t.equal(reason('<tool_use_error>File does not exist.</tool_use_error>'), 'File does not exist.');
  t.equal(reason([{ type: 'text', text: ' <tool_use_error>Error: a\nb</tool_use_error>\n' }]), 'Error: a\nb', 'over several lines, in a text block');
  t.equal(reason('<tool_use_error>a</tool_use_error> and more'), '<tool_use_error>a</tool_use_error> and more', 'not where they wrap only part of it');
  t.equal(reason([{ type: 'image', source: {} }]), undefined, 'no text, no reason');
});

t.test("Claude Code's calls refused permission, as its run's result lists them, are rejected", async (t) => {
  const msg = (type: string, content: unknown[], session = 's') => JSON.stringify({ type, message: { role: type, content }, session_id: session });
  const use = (id: string, name: string, input: unknown) => ({ type: 'tool_use', id, name, input });
  const answer = (id: string, text: string, isError = true) => ({ type: 'tool_result', tool_use_id: id, content: text, is_error: isError });
  const result = (denied: unknown, session = 's') => JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'ok', session_id: session, permission_denials: denied });
  const run = (denied: unknown, more: string[] = []) =>
    [
      JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 's' }),
      msg('assistant', [use('w', 'Write', { file_path: '.github/ci.yml', content: 'x' }), use('b', 'Bash', { command: 'rm -rf .github' }), use('r', 'Read', { file_path: 'a.ts' })]),
      msg('user', [answer('w', "Claude requested permissions to write to /p/.github/ci.yml, but you haven't granted it yet."), answer('b', 'Exit code 1'), answer('r', 'x', false)]),
      ...more,
      result(denied),
    ].join('\n');
  const records = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  let got = runCore(run([{ tool_name: 'Write', tool_use_id: 'w', tool_input: { file_path: '.github/ci.yml' } }]), { denyWrite: ['.github'], denyTool: ['bash'] });
  t.same(
    records(got.out).map((r) => [r.call_id, r.status]),
    [
      ['r', 'success'],
      ['w', 'rejected'],
      ['b', 'error'],
    ],
    'at the result, in the order they were answered',
  );
  t.same(got.violations.map((v) => formatViolation(v)), ["in:2: --deny-tool 'bash': Bash rm -rf .github (call b, error)"], 'a call refused did not act: no check fails on it');
  t.same(records(got.out)[1]!.reason, "Claude requested permissions to write to /p/.github/ci.yml, but you haven't granted it yet.");
  for (const [name, denied] of [
    ['none listed', []],
    ['no list', undefined],
    ['a list of another shape', { w: true }],
    ['another id', [{ tool_use_id: 'x' }]],
  ] as const) {
    got = runCore(run(denied), { denyWrite: ['.github'], denyTool: ['bash'] });
    t.same(
      records(got.out).map((r) => r.status),
      ['success', 'error', 'error'],
      `${name}: as answered`,
    );
    t.equal(got.violations.length, 2, `${name}: both fail their checks`);
  }
  // Another session's result says nothing of this one's; a new run of the session, or the end, hands them over as answered.
  got = runCore(run([{ tool_use_id: 'w' }], [result([{ tool_use_id: 'w' }], 'other')]).replace(/\n[^\n]*$/, ''));
  t.same(records(got.out).map((r) => [r.call_id, r.status]), [['r', 'success'], ['w', 'error'], ['b', 'error']], "no result of its own: as answered, at the end");
  got = runCore(`${run([], [JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 's' })])}`);
  t.same(records(got.out).map((r) => [r.call_id, r.status]), [['r', 'success'], ['w', 'error'], ['b', 'error']], 'a new run of the session: as answered, before it');
});

t.test("Claude Code's calls answered with an error, held for their run's result, hold little and at most MAX_REFUSALS", async (t) => {
  const lines = [JSON.stringify({ type: 'system', subtype: 'init', cwd: '/p', session_id: 's' })];
  const n = MAX_REFUSALS + 5;
  for (let i = 0; i < n; i++) {
    lines.push(JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: `b${i}`, name: 'Bash', input: { command: `make ${i}` } }] }, session_id: 's' }));
    lines.push(JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: `b${i}`, content: 'x'.repeat(5000), is_error: true }] }, session_id: 's' }));
  }
  const written: string[] = [];
  const core = new ToolsCore({});
  const reader = new EventReader({ record: (r) => core.record(r, (d) => written.push(d.toString())), problem: () => {} }, { needs: (type) => core.needs(type) });
  reader.startSource('in');
  reader.write(Buffer.from(`${lines.join('\n')}\n`));
  const before = written.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { call_id: string; reason: string });
  t.same(before.map((r) => r.call_id), ['b0', 'b1', 'b2', 'b3', 'b4'], `past ${MAX_REFUSALS} held, the oldest are written at once`);
  t.equal(before[0]!.reason.length, 1001, 'its reason cut as its record shows it');
  // The denial of one written already changes nothing: it failed its checks as an error.
  reader.write(Buffer.from(`${JSON.stringify({ type: 'result', subtype: 'success', result: 'ok', session_id: 's', permission_denials: [{ tool_use_id: 'b0' }, { tool_use_id: 'b9' }] })}\n`));
  reader.endSource();
  core.end((d) => written.push(d.toString()));
  const all = written.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { call_id: string; status: string });
  t.equal(all.length, n);
  t.same(all.filter((r) => r.status === 'rejected').map((r) => r.call_id), ['b9']);
  const full = runCore(lines.slice(0, 3).join('\n'), { full: true }).out;
  t.equal((JSON.parse(full) as { reason: string }).reason.length, 5000, 'with --full, the whole reason');
});
