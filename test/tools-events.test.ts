// The tool-call accessors of src/events.ts: finding the tool, its args, its result and its facts.
import t from 'tap';
import {
  toolCallEntry,
  toolCallArgs,
  toolCallResult,
  toolCallFacts,
  toolCallId,
  toolCallPhase,
  toolCallTimes,
  toolKind,
  writtenValues,
} from '../src/events.js';

const ev = (toolCall: unknown, extra: Record<string, unknown> = {}) => ({ type: 'tool_call', subtype: 'completed', call_id: 'c1', tool_call: toolCall, ...extra });
/** The facts of the call of a completed event whose `tool_call` is `tc`. */
const facts = (tc: Record<string, unknown>) => {
  const entry = toolCallEntry(ev(tc))!;
  return toolCallFacts(entry.name, toolCallArgs(entry).args, toolCallResult(entry));
};

t.test('the tool is the key ending in ToolCall, whatever comes before it', async (t) => {
  const e = ev({ toolCallId: 'c1', startedAtMs: 5, completedAtMs: 9, hookAdditionalContexts: [], readToolCall: { args: { path: 'a.ts' } } });
  const entry = toolCallEntry(e)!;
  t.equal(entry.key, 'readToolCall');
  t.equal(entry.name, 'read');
  t.same(toolCallTimes(e), { startedAtMs: 5, completedAtMs: 9, eventMs: undefined });
  t.equal(toolCallPhase(e), 'completed');
  t.equal(toolCallPhase({ subtype: 'progress' }), 'other');
});

t.test('unknown kinds keep their name; function calls use theirs', async (t) => {
  t.equal(toolCallEntry(ev({ frobnicateToolCall: { args: {} } }))!.name, 'frobnicate');
  t.equal(toolCallEntry(ev({ function: { name: 'read_file', arguments: '{}' } }))!.name, 'read_file');
  t.equal(toolCallEntry(ev({ function: { arguments: '{}' } }))!.name, 'function');
  t.equal(toolCallEntry(ev({ oddTool: { args: { path: 'x' } } }))!.name, 'oddTool', 'fallback: an object with args');
  t.equal(toolCallEntry(ev({ toolCallId: 'x' })), undefined);
  t.equal(toolCallEntry(ev('nope')), undefined);
  t.equal(toolCallEntry({ type: 'tool_call' }), undefined);
  t.equal(toolCallEntry(ev({ ToolCall: { args: {} } }))!.name, 'ToolCall', 'the bare suffix is no kind, but the call is kept');
});

t.test('call ids: call_id, else toolCallId beside the tool or in args', async (t) => {
  t.equal(toolCallId({ call_id: 'a\nb', tool_call: {} }), 'a\nb');
  t.equal(toolCallId({ tool_call: { toolCallId: 'x', shellToolCall: { args: {} } } }), 'x');
  t.equal(toolCallId({ tool_call: { shellToolCall: { args: { toolCallId: 'y' } } } }), 'y');
  t.equal(toolCallId({ tool_call: { shellToolCall: { args: {} } } }), undefined);
  t.equal(toolCallId({ call_id: 7, tool_call: {} }), '7', 'a numeric id');
  // A numeric id a double does not hold: as the event's bytes write it (two ids JSON.parse makes one number are two).
  for (const [written, id] of [
    ['12345678901234567890', '12345678901234567890'],
    ['12345678901234567891', '12345678901234567891'],
    ['0.1000000000000000055511151231257827', '0.1000000000000000055511151231257827'],
    // Two spellings of one number are one id.
    ['1e30', '1e+30'],
    ['1000000000000000000000000000000', '1e+30'],
    ['1.50', '1.5'],
  ]) {
    const line = `{"type":"tool_call","call_id":${written},"tool_call":{}}`;
    const event: unknown = JSON.parse(line);
    t.equal(toolCallId(event, undefined, writtenValues({ event, raw: Buffer.from(line) })), id, written);
  }
  const one: unknown = JSON.parse('{"call_id":1.0}');
  t.equal(toolCallId(one, undefined, writtenValues({ event: one, raw: Buffer.from('{"call_id":1.0}') })), '1', 'a safe integer: its number');
  t.equal(toolCallId({ call_id: 12345678901234567890, tool_call: {} }), '12345678901234567000', 'no bytes: the number');
  t.equal(toolCallId({ call_id: {}, tool_call: {} }), undefined);
});

t.test('function arguments: parsed, broken, salvaged', async (t) => {
  const args = (a: unknown) => toolCallArgs(toolCallEntry(ev({ function: { name: 'f', arguments: a } }))!);
  t.same(args('{"path":"a"}'), { args: { path: 'a' } });
  t.same(args({ path: 'b' }), { args: { path: 'b' } });
  t.same(args('[1]'), { args: {}, error: 'not an object', given: '[1]' });
  t.same(args(42), { args: {}, error: 'not an object', given: 42 });
  t.same(args(undefined), { args: undefined });
  t.same(args('{"target_file": "se\\"cret/.env", "x": tru'), { args: { target_file: 'se"cret/.env' }, error: 'not JSON', given: '{"target_file": "se\\"cret/.env", "x": tru' });
  t.same(args('garbage'), { args: {}, error: 'not JSON', given: 'garbage' });
  // A list given to any key read: a command's words, a path key's list, cut short after its last whole string.
  t.same(args('{"command": ["rm", "-rf", "/"], "timeout": tru').args, { command: ['rm', '-rf', '/'] }, "a command's words");
  t.same(args('{"path": [".github/ci.yml", "b"], "content": "x').args, { path: ['.github/ci.yml', 'b'] }, "a path key's list");
  t.same(args('{"file_path": ["a", "b').args, { file_path: ['a'] }, 'a list cut short');
  t.same(args('{"paths": "one", "x": tru').args, { paths: 'one' }, '`paths` given one');
  t.same(args('{"path": "a", "path": ["b"], "x').args, { path: 'a' }, 'a key given a string and a list: the string');
  t.same(toolCallArgs(toolCallEntry(ev({ writeToolCall: { result: {} } }))!), { args: undefined });
});

t.test('result variants, with siblings ignored', async (t) => {
  const res = (r: unknown) => toolCallResult(toolCallEntry(ev({ shellToolCall: { args: {}, result: r } }))!);
  for (const v of ['success', 'error', 'rejected', 'spawnError', 'failure']) t.equal(res({ isBackground: false, [v]: {} })!.status, v);
  t.same(res({ timeout: { after: 1 } }), { status: 'unknown', variant: 'timeout', body: { after: 1 }, result: { timeout: { after: 1 } } });
  t.equal(res('odd')!.status, 'unknown');
  t.equal(res(undefined), undefined);
  t.equal(res(null), undefined);
  const fnResult = toolCallResult(toolCallEntry(ev({ function: { name: 'f' }, result: { error: 'no' } }))!);
  t.equal(fnResult!.status, 'error', 'a function call result beside the function');
});

t.test("an MCP tool's own failure (isError in the call's success) is an error, its reason the text of its content", async (t) => {
  const mcp = (success: unknown) => ({ mcpToolCall: { args: { name: 'fs', toolName: 'write_file', args: { path: 'a.yml' } }, result: { success } } });
  const res = (success: unknown) => toolCallResult(toolCallEntry(ev(mcp(success)))!)!;
  t.match(res({ content: [{ text: { text: 'Error: EACCES' } }], isError: true }), { status: 'error', variant: 'success' });
  t.equal(facts(mcp({ content: [{ text: { text: 'Error: EACCES' } }], isError: true })).reason, 'Error: EACCES', "Cursor's shape of its content");
  t.equal(facts(mcp({ content: [{ type: 'text', text: 'no such file' }, { type: 'image' }, { type: 'text', text: 'try again' }], isError: true })).reason, 'no such file\ntry again', "MCP's shape of its content, every text");
  t.equal(facts(mcp({ isError: true })).reason, undefined, 'no content: no reason');
  for (const flag of [false, 'true', 1, null]) t.equal(res({ content: [], isError: flag }).status, 'success', `isError ${JSON.stringify(flag)}: a success`);
  t.equal(facts(mcp({ content: [{ text: 'done' }], isError: false })).reason, undefined, 'a success has no reason');
});

t.test('MCP servers: a preview writes nothing, a server shell runs where it says, read and edit tools of their names', async (t) => {
  const mcp = (toolName: string, args: unknown) => facts({ mcpToolCall: { args: { name: 'srv', toolName, args }, result: { success: { content: [] } } } });
  t.equal(mcp('edit_file', { path: 'a.md', edits: [], dryRun: true }).dryRun, true, "MCP's edit_file, dryRun");
  t.equal(facts({ editToolCall: { args: { path: 'a.md', dry_run: true }, result: { success: {} } } }).dryRun, true, "the agent's own tool, dry_run");
  for (const flag of [false, 'true', 1]) t.equal(mcp('edit_file', { path: 'a.md', dryRun: flag }).dryRun, undefined, `dryRun ${JSON.stringify(flag)}: no preview`);
  t.match(mcp('execute_command', { command: 'make', cwd: '/tmp' }), { command: 'make', workingDirectory: '/tmp' });
  t.match(mcp('run_command', { command: 'make', workingDirectory: '', dir: 'sub' }), { workingDirectory: 'sub' }, 'an empty name names no directory');
  t.equal(facts({ shellToolCall: { args: { command: 'make', workingDirectory: '', cwd: '/w' }, result: { success: {} } } }).workingDirectory, '/w', "the agent's own shell too");
  for (const name of ['read_text_file', 'read_media_file', 'read_multiple_files']) t.equal(toolKind(name), 'read', name);
  t.equal(toolKind('edit_block'), 'edit');
  t.same(mcp('browser_take_screenshot', { filename: '.github/shot.png' }).argPaths, ['.github/shot.png'], "Playwright's file name");
  t.same(facts({ function: { name: 'save_pdf', arguments: '{"file_name":"a.pdf","fileName":"b.pdf"}' } }).argPaths, ['b.pdf', 'a.pdf'], 'every spelling');
});

t.test('facts per kind', async (t) => {
  t.match(facts({ readToolCall: { args: { path: 'README.md' }, result: { success: { content: 'x', totalLines: 54, totalChars: 1254 } } } }), {
    kind: 'read', access: 'read', path: 'README.md', linesRead: 54, charsRead: 1254,
  });
  t.match(facts({ writeToolCall: { args: { path: 'summary.txt' }, result: { success: { path: '/p/summary.txt', linesCreated: 19, fileSize: 942 } } } }), {
    kind: 'write', access: 'write', argPaths: ['summary.txt'], resultPaths: ['/p/summary.txt'], linesWritten: 19, bytesWritten: 942,
  });
  t.match(facts({ editToolCall: { args: { path: 'a' }, result: { success: { linesAdded: 3, linesRemoved: 1 } } } }), { access: 'edit', linesAdded: 3, linesRemoved: 1 });
  t.match(facts({ deleteToolCall: { args: {}, result: { error: { path: 'gone', error: 'ENOENT' } } } }), { access: 'delete', path: 'gone', reason: 'ENOENT' });
  t.match(facts({ shellToolCall: { args: { command: 'npm test' }, result: { failure: { exitCode: 1, stdout: 'x', executionTime: 12 } } } }), {
    kind: 'shell', command: 'npm test', exitCode: 1, executionMs: 12, access: undefined,
  });
  t.match(facts({ mcpToolCall: { args: { name: 'gh', toolName: 'create_issue', providerIdentifier: 'github' }, result: { rejected: { reason: 'not allowed' } } } }), {
    kind: 'mcp', mcpServer: 'github', mcpTool: 'create_issue', reason: 'not allowed',
  });
  t.match(facts({ grepToolCall: { args: { pattern: 'TODO', path: 'src' } } }), { kind: 'grep', access: 'search', pattern: 'TODO', path: 'src' });
  t.match(facts({ lsToolCall: { args: { path: '.' } } }), { kind: 'ls', access: 'search' });
  t.match(facts({ globToolCall: { args: { globPattern: '*.ts', targetDirectory: 'src' } } }), { kind: 'glob', pattern: '*.ts', argPaths: ['src'] });
  t.match(facts({ frobToolCall: { args: { file_path: 'x' } } }), { kind: 'other', access: 'other', path: 'x' });
  t.match(facts({ webFetchToolCall: { args: { url: 'https://e.x' } } }), { kind: 'other', url: 'https://e.x', access: undefined });
  t.match(facts({ function: { name: 'edit_file', arguments: '{"target_file":"b.ts"}' } }), { kind: 'edit', access: 'edit', path: 'b.ts' });
  t.equal(facts({ rejected: 1, readToolCall: { args: { path: 1 } } }).path, undefined, 'a path that is not a string is no path');
});

t.test('paths named under several keys are listed in one order, whatever the order of the keys', async (t) => {
  // The order of the path keys (path, filePath, …, oldPath, newPath), not that of the object: the first is the one shown.
  const a = facts({ moveToolCall: { args: { newPath: 'b.ts', oldPath: 'a.ts', mode: 'x', path: 'dir' } } });
  const b = facts({ moveToolCall: { args: { path: 'dir', oldPath: 'a.ts', newPath: 'b.ts' } } });
  t.same(a.argPaths, ['dir', 'a.ts', 'b.ts']);
  t.same(b.argPaths, a.argPaths);
  t.equal(a.path, 'dir');
  t.same(facts({ editToolCall: { args: { new_path: 'n', file: 'f', targetFile: 't' } } }).argPaths, ['t', 'f', 'n']);
  // The same path under two keys is listed once.
  t.same(facts({ readToolCall: { args: { file_path: 'x', filePath: 'x', content: 'y' } } }).argPaths, ['x']);
  // An MCP call's own arguments, one level down, in the same order.
  t.same(facts({ mcpToolCall: { args: { name: 'fs', args: { dir: 'd', path: 'p' } } } }).argPaths, ['p', 'd']);
});

t.test('tool kinds by name', async (t) => {
  t.equal(toolKind('read'), 'read');
  t.equal(toolKind('run_terminal_cmd'), 'shell');
  t.equal(toolKind('Delete-File'), 'delete');
  t.equal(toolKind('updateTodos'), 'other');
});
