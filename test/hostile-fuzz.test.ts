// The hostile-input fuzzer: real-shaped streams damaged in every way logs are damaged
// (test/fixtures/hostile/fuzz.ts), run through every tool with its main options
// (test/fixtures/hostile/check.ts). Each run must end with a status from the table,
// without an exception or a stack trace, with every stderr line naming file:line, with
// nothing raw from the stream on a text output, and with nothing lost.
//
// Deterministic: cases are numbered seeds, the same in every run.
//   FUZZ_SEED=123 npx tap test/hostile-fuzz.test.ts      replays case 123 alone
//   FUZZ_CASES=5000 npx tap test/hostile-fuzz.test.ts    runs more cases (default 240)
//   FUZZ_FIRST=10000 FUZZ_CASES=2000 npx tap …           other seeds
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, runBin } from './fixtures/lib/run.js';
import { MUTATIONS, Rng, makeCase, randomChunks } from './fixtures/hostile/fuzz.js';
import type { FuzzCase } from './fixtures/hostile/fuzz.js';
import { INPUT_STATUSES, RUNS, SGR, TOOLS, describeRun, runInProcess, runProblems, stderrProblems, tapSafe } from './fixtures/hostile/check.js';
import type { RunOutput, ToolRun } from './fixtures/hostile/check.js';

const CASES = Number(process.env.FUZZ_CASES ?? 240);
const FIRST = Number(process.env.FUZZ_FIRST ?? 1);
const ONLY = process.env.FUZZ_SEED;
const SEEDS = ONLY !== undefined ? [Number(ONLY)] : Array.from({ length: CASES }, (_, i) => FIRST + i);
/** Cases run through the built binaries too (spawned: slower, but the whole process). */
const SPAWNED = ONLY !== undefined ? 1 : Number(process.env.FUZZ_SPAWNED ?? 6);

/** The streams the cases start from: every example stream, the hostile seeds, and a small generated run. */
function bases(): Array<{ name: string; data: Buffer }> {
  const dirs = [path.join(ROOT, 'test/fixtures/streams'), path.join(ROOT, 'test/fixtures/hostile/seeds')];
  const out = dirs.flatMap((dir) =>
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ndjson'))
      .sort()
      .map((f) => ({ name: f, data: fs.readFileSync(path.join(dir, f)) })),
  );
  const generated = spawnSync(process.execPath, [path.join(ROOT, 'bench/generate.mjs'), '--size', '24k', '--seed', 'hostile', '--max-payload', '1k', '--huge-every', '0']);
  if (generated.status !== 0) throw new Error(`bench/generate.mjs failed: ${generated.stderr}`);
  out.push({ name: 'generated (seed hostile, 24k)', data: generated.stdout });
  return out;
}

const BASES = bases();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-hostile-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The case of a seed: the first cases each start with one mutation in turn, so every kind is run whatever its weight. */
function caseOf(seed: number): FuzzCase {
  const forced = seed >= 1 && seed <= MUTATIONS.length * 3 ? MUTATIONS[(seed - 1) % MUTATIONS.length] : undefined;
  return makeCase(seed, BASES, forced);
}

function replay(c: FuzzCase): string {
  const saved = path.join(os.tmpdir(), `ndjson-hostile-seed-${c.seed}.ndjson`);
  fs.writeFileSync(saved, c.input);
  return `seed ${c.seed} (${c.base}, then ${c.mutations.join(', ')}; input saved as ${saved})\n  replay: FUZZ_SEED=${c.seed} npx tap test/hostile-fuzz.test.ts`;
}

// An exception that escapes a run (a callback, a stream) is a failure of the case being run.
let current: FuzzCase | undefined;
const escaped: string[] = [];
const onEscape = (error: unknown): void => {
  escaped.push(`${current ? replay(current) : 'outside a case'}: uncaught ${(error as Error)?.stack ?? String(error)}`);
};
process.on('uncaughtException', onEscape);
process.on('unhandledRejection', onEscape);
t.teardown(() => {
  process.off('uncaughtException', onEscape);
  process.off('unhandledRejection', onEscape);
});

t.test(`${SEEDS.length} damaged streams through every tool, in process`, async (t) => {
  const file = path.join(dir, 'input.ndjson');
  const perMutation = new Map<string, number>(MUTATIONS.map((m) => [m.name, 0]));
  const failures = new Map<string, string>();
  let runs = 0;
  let failing = 0;
  for (const seed of SEEDS) {
    const c = caseOf(seed);
    current = c;
    for (const m of c.mutations) perMutation.set(m, perMutation.get(m)! + 1);
    fs.writeFileSync(file, c.input);
    const chunks = randomChunks(Rng.fromInt(seed ^ 0x5bd1e995), c.input);
    const outputs = new Map<ToolRun, RunOutput>();
    const problems: string[] = [];
    for (const run of RUNS) {
      const ran = await runInProcess(run, run.chunked ? chunks : [c.input], file);
      outputs.set(run, ran);
      runs++;
      let found: string[];
      try {
        found = runProblems(run, c.input, ran, run.file ? file : 'stdin');
      } catch (error) {
        found = [`checking the run threw: ${(error as Error).stack ?? String(error)}`];
      }
      for (const p of found) problems.push(`${describeRun(run)}: ${p}`);
    }
    // Reading a file from its end gives the verdict reading it all gives.
    const fromStart = outputs.get(RUNS.find((r) => r.tool === 'ndjson-result' && r.args.length === 0 && !r.file)!)!;
    const fromEnd = outputs.get(RUNS.find((r) => r.tool === 'ndjson-result' && r.args.length === 0 && r.file)!)!;
    const verdicts = (ran: RunOutput, source: string) =>
      ran.stderr
        .split('\n')
        .filter((l) => !/^ndjson-result: \S+:\d+: (not JSON|not an object|truncated|line too long)/.test(l))
        .join('\n')
        .split(source)
        .join('SOURCE');
    if (fromStart.code !== fromEnd.code || !fromStart.stdout.equals(fromEnd.stdout) || verdicts(fromStart, 'stdin') !== verdicts(fromEnd, file)) {
      problems.push(
        `ndjson-result FILE and ndjson-result < input disagree: status ${fromEnd.code} vs ${fromStart.code}, stdout ${JSON.stringify(fromEnd.stdout.toString().slice(0, 80))} vs ${JSON.stringify(fromStart.stdout.toString().slice(0, 80))}, verdicts ${JSON.stringify(verdicts(fromEnd, file))} vs ${JSON.stringify(verdicts(fromStart, 'stdin'))}`,
      );
    }
    // Colour changes nothing but the colour, and chunking changes nothing at all.
    const plain = outputs.get(RUNS.find((r) => r.tool === 'ndjson-text' && r.args.join(' ') === '-a --thinking')!)!;
    const coloured = outputs.get(RUNS.find((r) => r.tool === 'ndjson-text' && r.args.includes('--color=always'))!)!;
    if (coloured.stdout.toString('utf8').replace(SGR, '') !== plain.stdout.toString('utf8')) {
      problems.push('ndjson-text -a --thinking: the coloured output (one chunk) is not the plain output (random chunks) plus colour');
    }
    if (escaped.length > 0) problems.push(...escaped.splice(0));
    if (problems.length > 0) {
      failing++;
      for (const p of problems) {
        // One message per kind of problem (what it says before any detail), so a bug is reported once, with the first seed that shows it.
        const kind = p.replace(/stdin:\d+|\d+/g, 'N').slice(0, 90);
        if (!failures.has(kind)) failures.set(kind, `${p}\n  ${replay(c)}`);
      }
    }
  }
  current = undefined;
  for (const message of failures.values()) t.fail(tapSafe(message));
  t.equal(failing, 0, `${SEEDS.length - failing} of ${SEEDS.length} cases kept every promise (${runs} runs)`);
  t.comment(`mutations applied: ${[...perMutation].map(([k, v]) => `${k} ${v}`).join(', ')}`);
});

t.test('a sample of the cases through the built binaries', async (t) => {
  let runs = 0;
  for (const seed of SEEDS.slice(0, SPAWNED)) {
    const c = caseOf(seed);
    for (const tool of TOOLS) {
      const ran = await runBin(tool, [], c.input);
      runs++;
      const problems = [...stderrProblems(tool, ran.stderr, 'stdin')];
      if (ran.code === null || !INPUT_STATUSES.includes(ran.code)) problems.push(`status ${ran.code} (signal ${ran.signal})`);
      for (const p of problems) t.fail(tapSafe(`${tool} < input: ${p}\n  ${replay(c)}`));
    }
  }
  t.pass(`${runs} spawned runs`);
});
