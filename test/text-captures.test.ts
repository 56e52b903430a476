// ndjson-text on real captured runs, kept outside the repository (in ../shared/transcripts
// beside a working copy; a plain clone has none, and the test says so and skips).
//
// What the default output must be is worked out here from the capture itself,
// by a reading independent of the tool's: the result text, less the assistant
// text that came before the last tool call.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, runBin } from './fixtures/lib/run.js';

const DIR = path.join(ROOT, '..', 'shared', 'transcripts');

if (!fs.existsSync(DIR)) {
  t.skip(`no captures beside this working copy (${path.relative(ROOT, DIR)} does not exist)`);
} else {
  const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.ndjson') || f.endsWith('.jsonl')).sort();
  t.ok(files.length > 0, 'the captures directory holds captures');
  for (const file of files) {
    t.test(file, async (t) => {
      const input = fs.readFileSync(path.join(DIR, file));
      const events = input
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const results = events.filter((e) => e.type === 'result');
      t.equal(results.length, 1, 'one run, one result');
      const result = String(results[0]!.result);
      const blocks = (e: Record<string, unknown>) => ((e.message as { content?: unknown })?.content ?? []) as Array<Record<string, unknown>>;
      const textOf = (e: Record<string, unknown>) =>
        blocks(e)
          .filter((b) => b.type === 'text')
          .map((b) => String(b.text))
          .join('');
      const isCall = (e: Record<string, unknown>) => e.type === 'tool_call' || (e.type === 'assistant' && blocks(e).some((b) => b.type === 'tool_use'));
      const lastCall = events.map(isCall).lastIndexOf(true);
      // None of the captures was made with partial output: every assistant event holds new text.
      const before = events
        .slice(0, lastCall + 1)
        .filter((e) => e.type === 'assistant')
        .map(textOf)
        .join('');
      const after = events
        .slice(lastCall + 1)
        .filter((e) => e.type === 'assistant')
        .map(textOf)
        .join('');
      const claude = events.some((e) => 'parent_tool_use_id' in e);

      const ran = await runBin('ndjson-text', [], input);
      t.equal(ran.code, 0, 'status 0');
      t.equal(ran.stderr, '', 'nothing on stderr');
      if (claude) {
        // Claude Code's result holds only the final message.
        t.equal(ran.stdout, `${result}\n`, 'the final message is the result');
      } else if (result.startsWith(before)) {
        t.equal(ran.stdout, `${result.slice(before.length)}\n`, 'the result, less the text before the last tool call');
      } else {
        t.comment(`${file}: its result is not its assistant text (the capture was trimmed): checked against the text after the last tool call only`);
      }
      t.equal(ran.stdout, `${after}\n`, 'the assistant text after the last tool call');

      if (!claude && result === before + after) {
        const all = await runBin('ndjson-text', ['-a', '--no-tools', '--no-user'], input);
        t.equal(all.stdout.replace(/\n/g, ''), result.replace(/\n/g, ''), '--all: every piece of text once, in order');
      }
    });
  }
}
