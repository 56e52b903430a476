// What the hostile-input suite found, one case each, kept as plain tests so each fix
// stays fixed whatever the fuzzer's seeds.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, memoryIo } from './fixtures/lib/run.js';
import { main as dedupeMain } from '../src/cli/dedupe.js';
import { main as textMain } from '../src/cli/text.js';
import { main as toolsMain } from '../src/cli/tools.js';

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
  t.equal(await toolsMain(['--no-pending'], m.io), 0, 'no call started: the torn line is no call');
  t.equal(m.stdout(), '');
});
