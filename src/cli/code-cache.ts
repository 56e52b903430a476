/**
 * Makes V8's code cache for the bundle (see start.ts), as the last step of
 * the build: `node dist/cli/code-cache.js`.
 *
 * The bundle is compiled, then each command runs on a small stream written
 * for the purpose (a run with deltas, thinking, tool calls large enough to be
 * skimmed, a result), in this process, its output thrown away. The cache then
 * holds the code of what they ran, not only of the bundle's top level: the
 * part that saves a run its compiling. The bundle is compiled under its name in
 * the package (CACHED_NAME), which the cache keeps: not the directory it is
 * built in.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { CACHED_NAME, CODE_CACHE, loadBundle } from './start.js';
import type { Io } from './common.js';
import type { CommandName } from './run.js';

/** A short stream of two runs, shaped like the agent's with partial output. */
function sampleStream(): string {
  const lines: unknown[] = [];
  const session = '5e1f9c1e-7d1a-4b8e-9d7e-0c6f2b1a9e42';
  const at = (n: number) => 1770000000000 + n;
  for (const [run, id] of [0, 1].map((run) => [run, `${session.slice(0, -1)}${run}`] as const)) {
    lines.push({ type: 'system', subtype: 'init', apiKeySource: 'login', cwd: '/home/user/project', session_id: id, model: 'Model', permissionMode: 'default' });
    lines.push({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'Fix the failing test.' }] }, session_id: id });
    for (let i = 0; i < 8; i++) lines.push({ type: 'thinking', subtype: 'delta', text: ` step ${i}`, session_id: id, timestamp_ms: at(i) });
    lines.push({ type: 'thinking', subtype: 'completed', session_id: id, timestamp_ms: at(9) });
    for (let i = 0; i < 8; i++) lines.push({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: ` word${i}` }] }, session_id: id, timestamp_ms: at(10 + i) });
    lines.push({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: ' word0 word1 word2 word3 word4 word5 word6 word7' }] }, session_id: id, model_call_id: `${id}-1`, timestamp_ms: at(20) });
    const content = 'export const x = 1;\n'.repeat(400);
    const calls = [
      ['readToolCall', { path: 'src/app.ts' }, { success: { content, totalLines: 400, totalChars: content.length } }],
      ['shellToolCall', { command: 'npm test', workingDirectory: '' }, { success: { command: 'npm test', exitCode: 1, stdout: content, stderr: '' } }],
      ['editToolCall', { path: 'src/app.ts', oldString: 'x', newString: 'y' }, { success: { path: '/home/user/project/src/app.ts', linesAdded: 1, linesRemoved: 1 } }],
      ['grepToolCall', { pattern: 'x', path: 'src' }, { success: { matches: Array.from({ length: 300 }, (_, k) => ({ file: `src/f${k}.ts`, line: k, text: 'export const x = 1;' })) } }],
    ] as const;
    calls.forEach(([tool, args, result], k) => {
      const callId = `toolu_${run}_${k}`;
      lines.push({ type: 'tool_call', subtype: 'started', call_id: callId, tool_call: { [tool]: { args } }, session_id: id, timestamp_ms: at(30 + k) });
      lines.push({ type: 'tool_call', subtype: 'completed', call_id: callId, tool_call: { [tool]: { args, result } }, session_id: id, timestamp_ms: at(40 + k) });
    });
    lines.push({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }, session_id: id, timestamp_ms: at(50) });
    lines.push({ type: 'result', subtype: 'success', is_error: false, duration_ms: 1000, result: 'Done.', session_id: id });
  }
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

/** Streams whose output is thrown away. */
function quietIo(): Io {
  const sink = () => new PassThrough().resume();
  return { stdin: Readable.from([]), stdout: sink(), stderr: sink(), env: { NO_COLOR: '1', TERM: 'dumb' } };
}

const RUNS: ReadonlyArray<[CommandName, string[]]> = [
  ['result', []],
  ['result', ['--all']],
  ['text', []],
  ['text', ['--all']],
  ['tools', []],
  ['tools', ['--summary']],
  ['dedupe', []],
];

const dir = mkdtempSync(path.join(os.tmpdir(), 'ndjson-agent-cache-'));
try {
  const file = path.join(dir, 'sample.ndjson');
  writeFileSync(file, sampleStream());
  const { commands, script } = loadBundle(null, CACHED_NAME);
  for (const [command, args] of RUNS) await commands.runCommand(command, [...args, file], quietIo());
  writeFileSync(CODE_CACHE, script.createCachedData());
} finally {
  rmSync(dir, { recursive: true, force: true });
}
