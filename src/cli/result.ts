/**
 * ndjson-result: the terminal result of an agent's run, and an honest exit
 * status: 0 success, 3 the result reports failure, 4 no result at all.
 */
import type { Options } from 'yargs';
import { commandStartFailure, commandStatus, parseArgs, processIo, runTool, startCommand, warn, EXIT } from './common.js';
import type { CommandSpec, CommonArgs, Io, RunResult } from './common.js';
import { ResultCore } from '../result/core.js';
import type { SessionVerdict } from '../result/core.js';
import { resultFailureMessage } from '../events.js';
import { visibleOneLine } from '../safe-text.js';

/** ndjson-result's own options (with the common ones, the whole of its `--help`). */
export const resultOptions = {
  json: {
    alias: 'j',
    type: 'boolean',
    default: false,
    describe: 'Print the result event itself (its line as read)',
  },
  field: {
    alias: 'f',
    type: 'string',
    array: true,
    requiresArg: true,
    describe: 'Print this field of the result (dot path: usage.outputTokens); repeatable',
  },
  tsv: {
    type: 'boolean',
    default: false,
    describe: 'With --field: one line per result, fields separated by tabs',
  },
  all: {
    alias: 'a',
    type: 'boolean',
    default: false,
    describe: "Every session's result, not only the last session's",
  },
  raw: {
    type: 'boolean',
    default: false,
    describe: 'Write control characters as they are, even to a terminal',
  },
} as const satisfies Record<string, Options>;

interface ResultArgs {
  json: boolean;
  field?: string[];
  tsv: boolean;
  all: boolean;
  raw: boolean;
}

export const resultSpec: CommandSpec<typeof resultOptions> = {
  name: 'ndjson-result',
  summary: "Print the terminal result of an agent's run and exit with its verdict:\n0 success, 3 the result reports failure, 4 no result (the agent stopped early).",
  options: resultOptions,
  examples: [
    ['agent -p --output-format stream-json "fix the tests" | ndjson-result', 'the final answer, or a non-zero status'],
    ['ndjson-result --field session_id --field usage.outputTokens --tsv run.ndjson', 'fields of the result'],
    ['ndjson-result -- agent -p --output-format stream-json "fix the tests"', 'run the agent, judge its stream and its exit status together'],
  ],
  runsCommand: true,
  check: (argv) => (argv.tsv && !(argv.field as unknown[] | undefined)?.length ? '--tsv needs --field' : undefined),
};

function describeSession(v: SessionVerdict): string {
  const id = v.session ? `session ${visibleOneLine(v.session)}, ` : '';
  return `${id}${v.events} event${v.events === 1 ? '' : 's'} from ${visibleOneLine(v.source)}:${v.line}`;
}

/** Runs ndjson-result; returns its exit status. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const parsed = parseArgs<typeof resultOptions, ResultArgs>(resultSpec, argv, io);
  if ('code' in parsed) return parsed.code;
  const { args } = parsed;
  const name = resultSpec.name;
  const core = new ResultCore({
    all: args.all,
    json: args.json,
    fields: args.field,
    tsv: args.tsv,
    escape: !args.raw && io.stdout.isTTY === true,
  });
  const command = parsed.rest.length > 0 ? startCommand(parsed.rest, io) : undefined;
  const run = await runTool(name, core, args, io, undefined, command);
  if (run.closed) return run.code;
  if (command) {
    const notStarted = await commandStartFailure(name, command, io);
    if (notStarted !== null) return notStarted;
  }
  const code = verdictStatus(name, core, args, run, io);
  return command ? commandStatus(name, command, code, io) : code;
}

function verdictStatus(name: string, core: ResultCore, args: ResultArgs & CommonArgs, run: RunResult, io: Io): number {
  // Under --strict, or when nothing could be read, the I/O error is the whole story.
  if (run.code !== EXIT.OK && ((args.strict && run.problems > 0) || core.verdicts.length === 0)) return run.code;
  if (core.verdicts.length === 0) {
    warn(io, name, 'no result event: the input held no events');
    return run.code || EXIT.NO_RESULT;
  }
  let code: number = EXIT.OK;
  for (const v of core.verdicts) {
    if (v.result === undefined) {
      warn(io, name, `no result event: the agent stopped before finishing (${describeSession(v)})`);
      code = EXIT.NO_RESULT;
    } else if (v.failed) {
      warn(io, name, `the run failed: ${visibleOneLine(resultFailureMessage(v.result.event))} (${describeSession(v)})`);
      if (code === EXIT.OK) code = EXIT.FAILED;
    }
  }
  return run.code || code;
}
