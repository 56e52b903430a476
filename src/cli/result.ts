/**
 * ndjson-result: the terminal result of an agent's run, and an honest exit
 * status: 0 success, 3 the result reports failure, 4 no result at all.
 */
import type { Options } from 'yargs';
import { list, parseArgs, processIo, warn, EXIT } from './common.js';
import type { CommandSpec, CommonArgs, Io } from './common.js';
import { judgeSessions, runJudged } from './verdict.js';
import { fstatSync, statSync } from 'node:fs';
import { ResultCore, formatVerdict } from '../result/core.js';
import { lineNumberAt, verdictFromEnd } from '../result/seek.js';
import { guardOutput, writeAll } from '../io/output.js';
import { STDIN, closeFd, descriptorOffset, fstatFd, openFd } from '../io/sources.js';
import type { SessionVerdict } from '../result/core.js';
import { resultFailed } from '../events.js';

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
    ['agent -p --output-format stream-json "fix the tests" | ndjson-result', 'the final answer, or a non-zero status'],
    ['ndjson-result --field session_id --field usage.outputTokens --tsv run.ndjson', 'fields of the result'],
    ['ndjson-result -- agent -p --output-format stream-json "fix the tests"', 'run the agent, judge its stream and its exit status together'],
  ],
  runsCommand: true,
  statusText: {
    [EXIT.INPUT]: 'input or output failed, --strict met a bad line, or a result was not kept',
    [EXIT.FAILED]: 'failure reported: the result says the run failed',
  },
  check: (argv) => {
    const fields = list(argv.field);
    if (fields?.some((f) => f === '')) return '--field needs a path';
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
  if (parsed.rest.length === 0 && !args.all && !args.strict) {
    const code = await fromEnd(args, core, io);
    if (code !== undefined) return code;
  }
  return runJudged(name, core, args, parsed.rest, io, (run) => judgeSessions(name, core.verdicts, args, run, io, { given: core.given }));
}

/**
 * The default verdict of a single regular file (named, or standard input
 * redirected from one), read from its end; undefined when the file must be
 * read from the start (it is not a regular file, or its end is not clean).
 */
async function fromEnd(args: ResultArgs & CommonArgs, core: ResultCore, io: Io): Promise<number | undefined> {
  const input = await openSeekable(args.files, io);
  if (input === undefined) return undefined;
  try {
    const outcome = await verdictFromEnd(input.fd, input.size);
    if (outcome === null) return undefined;
    const line = outcome.kind === 'result' && !resultFailed(outcome.event) ? 0 : await lineNumberAt(input.fd, outcome.line.offset);
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
      if (written.kind === 'closed') return EXIT.OK;
      if (written.kind === 'write-error') {
        warn(io, resultSpec.name, `write error: ${written.message}`);
        return EXIT.INPUT;
      }
    }
    return judgeSessions(resultSpec.name, core.verdicts, args, { code: EXIT.OK, closed: false, problems: 0 }, io);
  } finally {
    await input.close();
  }
}

/** The input as a regular file to read at any offset, when it is one: a single file argument, or standard input redirected from a file. */
async function openSeekable(files: string[], io: Io): Promise<{ fd: number; size: number; source: string; close: () => Promise<void> } | undefined> {
  if (files.length > 1) return undefined;
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
      if (stat.isFile()) {
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
    if (stat.isFile() && descriptorOffset(fd) === 0) return { fd, size: stat.size, source: STDIN, close: async () => {} };
  } catch {
    // not a file
  }
  return undefined;
}
