/**
 * ndjson-dedupe: the agent's event stream with each piece of assistant text
 * exactly once, as NDJSON, every kept line as it was read.
 */
import type { Options } from 'yargs';
import { list, parseArgs, processIo, runTool, warn, EXIT } from './common.js';
import type { CommandSpec, Io } from './common.js';
import { DedupeCore, STAT_KINDS } from '../dedupe/core.js';
import type { DedupeStats, VerifyFailure } from '../dedupe/core.js';
import { shellWord, visibleOneLine } from '../safe-text.js';
import { pathSteps } from '../events.js';
import { describeFlushMismatch, excerptAt, sessionPart } from './notes.js';

export { excerptAt };

/** ndjson-dedupe's own options (with the common ones, the whole of its `--help`). */
export const dedupeOptions = {
  verify: {
    type: 'boolean',
    default: false,
    describe: "At each result, check that the session's kept assistant text equals its result text; status 3 if not",
  },
  stats: {
    type: 'boolean',
    default: false,
    describe: 'At the end, count events read, kept and dropped, per kind, on stderr',
  },
  key: {
    alias: 'k',
    type: 'string',
    requiresArg: true,
    describe: "Generic mode: drop events whose values at this path (uuid, or as jq: .message.content[0].text) equal an earlier event's; repeatable",
  },
} as const satisfies Record<string, Options>;

interface DedupeArgs {
  verify: boolean;
  stats: boolean;
  key?: string | string[];
}

export const dedupeSpec: CommandSpec<typeof dedupeOptions> = {
  name: 'ndjson-dedupe',
  summary:
    "Copy an agent's event stream, dropping the assistant flushes that repeat text\n" +
    'already streamed as deltas (--stream-partial-output), so each piece of text\n' +
    'appears once. Everything else passes through as read.',
  options: dedupeOptions,
  examples: [
    ['agent -p --output-format stream-json --stream-partial-output "task" | ndjson-dedupe > run.ndjson', 'keep each piece of text once'],
    ['ndjson-dedupe --verify --stats agent.ndjson > /dev/null', "check the kept text against the result (of a log as the agent wrote it)"],
    ['cat old.ndjson new.ndjson | ndjson-dedupe --key uuid', 'drop repeated events, like sort -u without sorting'],
  ],
  // 3 and 4 come only with --verify; no command is run.
  statuses: [EXIT.OK, EXIT.USAGE, EXIT.INPUT, EXIT.FAILED, EXIT.NO_RESULT, 130],
  statusText: {
    [EXIT.FAILED]: 'with --verify: kept text differs from its result, or a flush from its deltas',
    [EXIT.NO_RESULT]: "with --verify: a run ended (the input, or its session started again) before its result",
  },
  check: (argv) => {
    const keys = list(argv.key);
    if (keys?.some((k) => String(k) === '')) return '--key needs a path';
    // jq's `.` is the whole event: a key of the whole event is what the agent-stream rules are not.
    if (keys?.some((k) => String(k) === '.')) return "--key needs a path to a field ('.' names none)";
    const bad = keys?.find((k) => pathSteps(String(k)) === undefined);
    if (bad !== undefined) return `--key: not a path: '${visibleOneLine(String(bad))}' (a dot path: uuid, .message.id, .content[0], .a["b.c"])`;
    if (keys?.length && argv.verify) return '--verify checks the agent-stream rules: it cannot be used with --key';
    return undefined;
  },
};

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The stderr line for a result that differs from the kept text (`--verify`). */
export function describeVerifyFailure(f: VerifyFailure): string {
  return (
    `${visibleOneLine(f.source)}:${f.line}: verify: ${sessionPart(f.session)}kept text differs from the result ` +
    `at offset ${f.offset} (kept ${codePoints(f.keptText)} chars, result ${codePoints(f.resultText)}): ` +
    `kept ${excerptAt(f.keptText, f.offset)}, result ${excerptAt(f.resultText, f.offset)}`
  );
}

/** The `--stats` report: one row per kind of event seen, a total, lines that were not events, and what `--verify` checked. */
export function formatStats(name: string, stats: DedupeStats, verify: boolean): string {
  const row = (label: string, read: number, kept: number, dropped: number): string =>
    `  ${label.padEnd(20)}${String(read).padStart(9)}${String(kept).padStart(9)}${String(dropped).padStart(9)}\n`;
  let out = `${name}: stats\n  ${'kind'.padEnd(20)}${'read'.padStart(9)}${'kept'.padStart(9)}${'dropped'.padStart(9)}\n`;
  let read = 0;
  let kept = 0;
  let dropped = 0;
  for (const kind of STAT_KINDS) {
    const c = stats.kinds[kind];
    read += c.read;
    kept += c.kept;
    dropped += c.dropped;
    if (c.read > 0) out += row(kind, c.read, c.kept, c.dropped);
  }
  out += row('total', read, kept, dropped);
  out += row('not events', stats.notEvents, 0, stats.notEvents);
  if (verify) {
    const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
    out += `  verify: ${plural(stats.verified, 'result')} checked, ${stats.differed} differed`;
    if (stats.uncheckedFailed > 0) out += `; ${stats.uncheckedFailed} not checked (failed run, or no result text)`;
    if (stats.uncheckedClaude > 0) out += `; ${stats.uncheckedClaude} not checked (Claude Code: its result holds only the final message)`;
    if (stats.uncheckedNoText > 0) out += `; ${stats.uncheckedNoText} not checked (no assistant events)`;
    if (stats.noResult > 0) out += `; ${stats.noResult} session${stats.noResult === 1 ? '' : 's'} without a result`;
    out += '\n';
  }
  return out;
}

/** How many events were read, of every kind. */
function eventsRead(stats: DedupeStats): number {
  return Object.values(stats.kinds).reduce((n, c) => n + c.read, 0);
}

/** Runs ndjson-dedupe; returns its exit status. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const parsed = parseArgs<typeof dedupeOptions, DedupeArgs>(dedupeSpec, argv, io);
  if ('code' in parsed) return parsed.code;
  const { args } = parsed;
  const name = dedupeSpec.name;
  let mismatches = 0;
  const core = new DedupeCore({
    keys: list(args.key),
    verify: args.verify,
    onFlushMismatch: (m) => {
      mismatches++;
      warn(io, name, describeFlushMismatch(m, m.kept ? 'kept for the content it holds besides text' : 'dropped'));
    },
    onVerifyFailure: (f) => warn(io, name, describeVerifyFailure(f)),
    onUnverified: (u) =>
      warn(io, name, `${visibleOneLine(u.source)}:${u.line}: verify: ${sessionPart(u.session)}no result to check the kept text against: ${u.restarted ? 'the session started again' : 'the stream ended'} first`),
  });
  // --verify judges every run: a reader that goes away (| head) does not end the reading.
  const run = await runTool(name, core, args, io, { readToEnd: args.verify });
  // Asked for, the counts of what was read are written when a signal ends the run too (not when the reader has gone,
  // nor when --strict stopped it: they are written only at the end).
  if (args.stats && run.strictStop !== true && (!run.closed || run.signalled === true)) io.stderr.write(formatStats(name, core.stats, args.verify));
  // A key no event read has dropped nothing: a path misspelt (`--key uid`, `--key message.idd`) is said to be, not silently a copy.
  const keys = list(args.key);
  if (keys !== undefined && keys.length > 0 && core.stats.keyed === 0 && eventsRead(core.stats) > 0 && run.strictStop !== true && !run.closed && run.signalled !== true) {
    const named = keys.map((k) => shellWord(String(k))).join(', ');
    warn(io, name, `--key ${named}: no event read has ${keys.length === 1 ? 'it' : 'any of them'}, so none was dropped`);
  }
  if (run.closed || run.code !== EXIT.OK) return run.code;
  // Under --verify a flush that disagrees with its deltas is a failed check too: the stream contradicts itself.
  if (args.verify && (core.stats.differed > 0 || mismatches > 0)) return EXIT.FAILED;
  if (args.verify && core.stats.noResult > 0) return EXIT.NO_RESULT;
  // Nothing of a run to check is no result either, as ndjson-result has it.
  if (args.verify && !core.sawRun) {
    warn(io, name, 'verify: no result to check the kept text against: the input held no events of a run');
    return EXIT.NO_RESULT;
  }
  return EXIT.OK;
}
