/**
 * ndjson-result: the terminal result of an agent's run, and an honest exit
 * status: 0 success, 3 the result reports failure, 4 no result at all.
 */
import type { Options } from 'yargs';
import { list, parseArgs, processIo, warn, EXIT } from './common.js';
import type { CommandSpec, CommonArgs, Io, RunResult } from './common.js';
import { judgeSessions, runJudged } from './verdict.js';
import { fstatSync, statSync } from 'node:fs';
import { ResultCore, formatVerdict } from '../result/core.js';
import { lineNumberAt, verdictFromEnd } from '../result/seek.js';
import { guardOutput, writeAll } from '../io/output.js';
import { STDIN, closeFd, descriptorOffset, fstatFd, openFd, outputFile } from '../io/sources.js';
import type { SessionVerdict } from '../result/core.js';
import { pathSteps, resultFailed } from '../events.js';
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
    requiresArg: true,
    describe: 'Print this field of the result (usage.outputTokens, or as jq: .content[0].text); repeatable',
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
    describe: "Every session's result, not only the last session's; every run without one is reported",
  },
  raw: {
    type: 'boolean',
    default: false,
    describe: 'Write control characters as they are, even to a terminal',
  },
} as const satisfies Record<string, Options>;

interface ResultArgs {
  json: boolean;
  field?: string | string[];
  tsv: boolean;
  all: boolean;
  raw: boolean;
}

export const resultSpec: CommandSpec<typeof resultOptions> = {
  name: 'ndjson-result',
  summary: "Print the terminal result of an agent's run and exit with its verdict:\n0 success, 3 the result reports failure, 4 no result (the agent stopped early).",
  options: resultOptions,
  examples: [
    ['agent -p --output-format stream-json "fix the tests" | ndjson-result', 'the result text, or a non-zero status'],
    ['ndjson-result --field session_id --field usage.outputTokens --tsv run.ndjson', 'fields of the result'],
    ['ndjson-result -- agent -p --output-format stream-json "fix the tests"', 'run the agent, judge its stream and its exit status together'],
  ],
  runsCommand: true,
  statusText: {
    [EXIT.INPUT]: 'input or output failed, --strict met a bad line, a result was not kept, or the command after -- could not be started',
    [EXIT.FAILED]: 'failure reported: the result says the run failed',
  },
  check: (argv) => {
    const fields = list(argv.field);
    if (fields?.some((f) => f === '')) return '--field needs a path';
    if (fields?.some((f) => f === '.')) return "--field needs a path to a field ('.' names none: --json prints the whole result)";
    const bad = fields?.find((f) => pathSteps(f) === undefined);
    if (bad !== undefined) return `--field: not a path: '${visibleOneLine(bad)}' (a dot path: usage.outputTokens, .content[0].text, .modelUsage["a.b"])`;
    if (argv.tsv && !fields?.length) return '--tsv needs --field';
    if (argv.json && fields?.length) return 'give either --json or --field, not both';
    return undefined;
  },
};

/** Runs ndjson-result; returns its exit status. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const parsed = parseArgs<typeof resultOptions, ResultArgs>(resultSpec, argv, io);
  if ('code' in parsed) return parsed.code;
  const { args } = parsed;
  const name = resultSpec.name;
  const core = new ResultCore({
    all: args.all,
    keepResults: !args.all,
    keepVerdicts: !args.all,
    json: args.json,
    fields: list(args.field),
    tsv: args.tsv,
    escape: !args.raw && io.stdout.isTTY === true,
  });
  const seekable = parsed.rest.length === 0 && !args.all ? await openSeekable(args.files, io) : undefined;
  try {
    if (seekable !== undefined && !args.strict) {
      const code = await fromEnd(args, core, io, seekable);
      if (code !== undefined) return code;
    }
    const judge = async (run: RunResult): Promise<number> => {
      // --strict reads a regular file from its start, to check every line: a last result let go on the way (see
      // ResultOptions.heldResults) is read again from the file's end, where the reading without --strict finds it.
      if (seekable !== undefined && args.strict && run.code === EXIT.OK && core.verdicts.at(-1)?.dropped) {
        const code = await fromEnd(args, new ResultCore(core.options), io, seekable);
        if (code !== undefined) return code;
      }
      return judgeSessions(name, core.verdicts, args, run, io, { given: core.given, fileReadFromStart: seekable !== undefined });
    };
    // The status is the verdict whoever reads the output: a reader gone does not end the run.
    return await runJudged(name, core, args, parsed.rest, io, judge, { readToEnd: true });
  } finally {
    await seekable?.close();
  }
}

/** A regular file to read at any offset: see {@link openSeekable}. */
interface Seekable {
  fd: number;
  size: number;
  source: string;
  close: () => Promise<void>;
}

/**
 * The default verdict of a single regular file (named, or standard input
 * redirected from one), read from its end; undefined when the file must be
 * read from the start (it is not a regular file, or its end is not clean).
 */
async function fromEnd(args: ResultArgs & CommonArgs, core: ResultCore, io: Io, input: Seekable): Promise<number | undefined> {
  let outcome: Awaited<ReturnType<typeof verdictFromEnd>>;
  let line: number;
  try {
    outcome = await verdictFromEnd(input.fd, input.size);
    if (outcome === null) return undefined;
    line = outcome.kind === 'result' && !resultFailed(outcome.event) ? 0 : await lineNumberAt(input.fd, outcome.line.offset);
  } catch {
    // Not read as its size said (cut short while read, a file of the kernel's), or not readable at all: the full read reads it as it is, and reports what fails.
    return undefined;
  }
  const verdict: SessionVerdict = {
    session: outcome.session,
    source: input.source,
    line,
    failed: outcome.kind === 'result' && resultFailed(outcome.event),
    result: outcome.kind === 'result' ? { event: outcome.event, raw: outcome.line.raw, source: input.source, line } : undefined,
  };
  core.verdicts.push(verdict);
  const out = formatVerdict(verdict, core.options);
  if (out !== undefined) {
    guardOutput(io.stdout);
    const written = await writeAll(io.stdout, out);
    // A reader gone (`| head -c0`) does not change how the run ended: the status is the verdict.
    if (written.kind === 'write-error') {
      warn(io, resultSpec.name, `write error: ${written.message}`);
      return EXIT.INPUT;
    }
  }
  return judgeSessions(resultSpec.name, core.verdicts, args, { code: EXIT.OK, closed: false, problems: 0 }, io);
}

/** The input as a regular file to read at any offset, when it is one: a single file argument, or standard input redirected from a file. */
async function openSeekable(files: string[], io: Io): Promise<Seekable | undefined> {
  if (files.length > 1) return undefined;
  // The file the output goes to: the full read reports it (see openSources), and reads none of it.
  const output = io.stdoutFd === undefined ? undefined : outputFile(io.stdoutFd);
  const isOutput = (stat: { dev: number; ino: number }): boolean => output !== undefined && stat.dev === output.dev && stat.ino === output.ino;
  if (files.length === 1 && files[0] !== '-') {
    // Only a regular file is opened here. A named pipe opened and closed again before it is read loses what its writer wrote, and the read after waits for a writer that has gone.
    try {
      if (statSync(files[0]!, { throwIfNoEntry: false })?.isFile() !== true) return undefined;
    } catch {
      return undefined;
    }
    let fd: number | undefined;
    try {
      fd = await openFd(files[0]!, 'r');
      const stat = await fstatFd(fd);
      if (stat.isFile() && !isOutput(stat)) {
        const opened = fd;
        return { fd: opened, size: stat.size, source: files[0]!, close: () => closeFd(opened) };
      }
    } catch {
      // The full read reports what is wrong with it.
    }
    if (fd !== undefined) await closeFd(fd);
    return undefined;
  }
  if (io.stdinFd === undefined) return undefined;
  const fd = io.stdinFd;
  try {
    const stat = fstatSync(fd);
    // Only from its start: what was read of it before is no longer the input (where that cannot be known, it is read as it comes).
    if (stat.isFile() && !isOutput(stat) && descriptorOffset(fd) === 0) return { fd, size: stat.size, source: STDIN, close: async () => {} };
  } catch {
    // not a file
  }
  return undefined;
}
