// ndjson-tools on real captures, when the shared folder of captures is there (it is
// not part of the project). Expectations come from reading each capture independently.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, runBin } from './fixtures/lib/run.js';

const DIR = path.resolve(ROOT, '../shared/transcripts');

if (!fs.existsSync(DIR)) {
  t.skip(`no captures at ${DIR}: the real-capture checks did not run`);
} else {
  const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.ndjson')).sort();
  for (const file of files) {
    const full = path.join(DIR, file);
    const events = fs
      .readFileSync(full, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, any>);
    const toolEvents = events.filter((e) => e.type === 'tool_call');
    const claudeToolUse = events.some((e) => Array.isArray(e.message?.content) && e.message.content.some((b: any) => b?.type === 'tool_use'));

    t.test(file, async (t) => {
      const run = await runBin('ndjson-tools', [full]);
      const records = run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
      if (claudeToolUse) {
        t.equal(run.code, 0);
        t.equal(run.stderr, '');
        // The oracle: each tool_use block a call, completed by the tool_result block that names it, in that order.
        // (A call answered with an error waits for its run's result, which says whether it was refused permission.)
        const uses = new Map<string, { name: string; parent: string | null; input: any }>();
        const results: Array<{ id: string; error: boolean }> = [];
        let failed: Array<{ id: string; error: boolean }> = [];
        for (const e of events) {
          for (const b of Array.isArray(e.message?.content) ? e.message.content : []) {
            if (e.type === 'assistant' && b?.type === 'tool_use') uses.set(b.id, { name: b.name, parent: e.parent_tool_use_id ?? null, input: b.input });
            if (e.type === 'user' && b?.type === 'tool_result') (b.is_error === true ? failed : results).push({ id: b.tool_use_id, error: b.is_error === true });
          }
          if (e.type === 'result') {
            results.push(...failed);
            failed = [];
          }
        }
        results.push(...failed);
        const answered = new Set(results.map((r) => r.id));
        t.same(
          records.map((r) => r.call_id),
          [...results.map((r) => r.id), ...[...uses.keys()].filter((id) => !answered.has(id))],
          'one record per call, in the order of their answers, unanswered ones last',
        );
        for (const r of records) {
          const use = uses.get(r.call_id)!;
          const answer = results.find((a) => a.id === r.call_id);
          t.equal(r.tool, use.name, `${r.call_id}: its tool`);
          t.equal(r.status, answer === undefined ? 'pending' : answer.error ? 'error' : 'success', `${r.call_id}: its status`);
          t.equal(r.parent_call_id, use.parent ?? undefined, `${r.call_id}: the call whose sub-agent made it`);
          if (use.input.file_path !== undefined) t.same(r.read, [use.input.file_path], `${r.call_id}: the file it read`);
          if (use.input.command !== undefined) t.equal(r.command, use.input.command, `${r.call_id}: its command`);
        }
        const checked = await runBin('ndjson-tools', ['--no-pending', '--deny-write', '**', full]);
        t.equal(checked.code, 0, 'and the checks pass on them: nothing was written, nothing is pending');
        const denied = await runBin('ndjson-tools', ['--deny-read', '**/main.go', full]);
        t.equal(denied.code, 3, 'a read of a file denied fails');
        t.equal(denied.stderr.split('\n').filter(Boolean).length, [...uses.values()].filter((u) => String(u.input.file_path).endsWith('/main.go')).length, 'once for each call that read it');
        return;
      }
      t.equal(run.code, 0);
      t.equal(run.stderr, '');
      // The oracle: calls by session and id, completed in the order their completions appear.
      const byKey = new Map<string, { started?: any; completed?: any }>();
      const completionOrder: string[] = [];
      for (const e of toolEvents) {
        const key = `${e.session_id}\u0000${e.call_id}`;
        const entry = byKey.get(key) ?? {};
        byKey.set(key, entry);
        if (e.subtype === 'started') entry.started = e;
        else {
          entry.completed = e;
          completionOrder.push(key);
        }
      }
      const pendingKeys = [...byKey].filter(([, v]) => !v.completed).map(([k]) => k);
      t.same(
        records.map((r) => `${r.session_id}\u0000${r.call_id}`),
        [...completionOrder, ...pendingKeys],
        'one record per call, in completion order, pending ones last',
      );
      t.equal(records.reduce((n, r) => n + r.events, 0), toolEvents.length, 'every tool_call event is accounted for');
      const cwd = events.find((e) => e.type === 'system' && e.subtype === 'init')?.cwd;
      for (const r of records) {
        const { started, completed } = byKey.get(`${r.session_id}\u0000${r.call_id}`)!;
        const tool = Object.keys((completed ?? started).tool_call).find((k) => k.endsWith('ToolCall'))!;
        const result = completed?.tool_call[tool]?.result;
        t.equal(r.tool, tool.replace(/ToolCall$/, ''));
        t.equal(r.status, result ? Object.keys(result).find((k) => ['success', 'error', 'rejected', 'spawnError', 'failure'].includes(k)) : 'pending');
        t.equal(r.cwd, cwd);
        if (tool === 'shellToolCall') {
          t.equal(r.command, started.tool_call[tool].args.command);
          if (result?.success) t.equal(r.exit_code, result.success.exitCode);
        }
        if (started?.timestamp_ms && completed?.timestamp_ms) t.equal(r.duration_ms, completed.timestamp_ms - started.timestamp_ms);
        t.notOk('args' in r || 'result' in r, 'no payloads without --full');
      }
      // Call ids with newlines are printed escaped, one line per violation.
      const denied = await runBin('ndjson-tools', ['--deny-tool', 'shell', '--summary', full]);
      const shellCalls = records.filter((r) => r.kind === 'shell' && r.status !== 'rejected' && r.status !== 'spawnError');
      t.equal(denied.code, shellCalls.length > 0 ? 3 : 0);
      const lines = denied.stderr.split('\n').filter(Boolean);
      t.equal(lines.length, shellCalls.length, 'one stderr line per violation');
      for (const r of shellCalls) t.ok(lines.some((l) => l.includes(`call ${(r.call_id as string).replace(/\n/g, '\\n')},`)), 'call id escaped');
      t.match(denied.stdout, `${records.length} tool call${records.length === 1 ? '' : 's'}`);
    });
  }
}
