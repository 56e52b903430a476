// ndjson-dedupe on real captured streams, and on partial-output versions of them built here.
// The captures live outside the repository (a directory of public streams kept beside the clone); set
// NDJSON_AGENT_TRANSCRIPTS to point elsewhere. Without them, this file skips, saying why.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, memoryIo } from './fixtures/lib/run.js';
import { main } from '../src/cli/dedupe.js';
import { prng, toPartial } from './fixtures/ndjson-dedupe/partial.js';

const DIR = process.env.NDJSON_AGENT_TRANSCRIPTS ?? path.resolve(ROOT, '..', 'shared', 'transcripts');
const SEEDS = 20;

/** The stream as ndjson-dedupe writes events it keeps: each non-blank line, without CR, ending in a newline. */
function asWritten(text: string): string {
  return text
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '')
    .map((l) => `${l}\n`)
    .join('');
}

async function run(argv: string[], input: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const m = memoryIo(input);
  const code = await main(argv, m.io);
  return { code, stdout: m.stdout(), stderr: m.stderr() };
}

const files = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => f.endsWith('.ndjson')).sort() : [];
if (files.length === 0) {
  t.skip(`no captured streams in ${DIR}: set NDJSON_AGENT_TRANSCRIPTS to a directory of *.ndjson captures`);
} else {
  for (const file of files) {
    const text = fs.readFileSync(path.join(DIR, file), 'utf8');
    const claude = /"claude_code_version"|"total_cost_usd"/.test(text);
    // Its authors trimmed this capture: its result no longer equals its assistant text.
    const shortened = file.includes('full_session');
    t.test(file, async (t) => {
      const plain = await run(['--verify', '--stats'], text);
      t.equal(plain.stdout, asWritten(text), 'a stream without partial output passes through unchanged');
      if (shortened) {
        t.equal(plain.code, 3, '--verify reports the shortened result');
        t.match(plain.stderr, /verify: session [0-9a-f-]+: kept text differs from the result at offset 0 /);
      } else {
        t.equal(plain.code, 0, '--verify passes');
      }
      if (claude) {
        t.match(plain.stderr, /verify: 0 results checked, 0 differed; 1 not checked \(Claude Code/, 'Claude Code dialect: passed through, result not checked');
        return;
      }
      t.match(plain.stderr, /verify: 1 result checked/);

      for (let seed = 1; seed <= SEEDS; seed++) {
        const built = toPartial(text, prng(seed));
        const input = built.map((b) => `${b.line}\n`).join('');
        const expected = built.filter((b) => !b.duplicate).map((b) => `${b.line}\n`).join('');
        const out = await run(['--verify'], input);
        const ok = out.stdout === expected && out.code === (shortened ? 3 : 0) && (shortened ? /kept text differs/.test(out.stderr) : out.stderr === '');
        if (!ok) {
          t.same({ code: out.code, stderr: out.stderr, same: out.stdout === expected }, { code: shortened ? 3 : 0, stderr: '', same: true }, `partial version, seed ${seed}`);
          return;
        }
        const again = await run([], out.stdout);
        if (again.stdout !== out.stdout) {
          t.equal(again.stdout, out.stdout, `seed ${seed}: dedupe twice is dedupe once`);
          return;
        }
      }
      t.pass(`${SEEDS} partial versions: exactly their flushes dropped, --verify ${shortened ? 'reports the shortened result' : 'passes'}, dedupe is idempotent`);
    });
  }
}
