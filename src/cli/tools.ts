/**
 * ndjson-tools: the tool-call audit. One NDJSON record per call by default;
 * `--summary` or `--paths` instead; CI checks that turn into status 3.
 */
import type { Options } from 'yargs';
import { list, parseArgs, processIo, runTool, warn, EXIT } from './common.js';
import type { CommandSpec, Io } from './common.js';
import { MAX_STARTS, ToolsCore } from '../tools/core.js';
import { MAX_SUBAGENT_DEPTH } from '../events.js';
import { CALL_STATUSES } from '../tools/call.js';
import type { CallStatus } from '../tools/call.js';
import { formatViolation, policyProblem } from '../tools/policy.js';
import type { PathsChoice } from '../tools/summary.js';
import { shellWord, visibleOneLine } from '../safe-text.js';

/** A status as given on the command line, in its own case when it is one (`spawnerror` is `spawnError`). */
function canonicalStatus(given: string): string {
  const lower = String(given).toLowerCase();
  return CALL_STATUSES.find((s) => s.toLowerCase() === lower) ?? given;
}

/** ndjson-tools' own options (with the common ones, the whole of its `--help`). */
export const toolsOptions = {
  summary: {
    alias: 's',
    type: 'boolean',
    default: false,
    describe: 'Print a summary at the end instead of records: counts per tool and status, files, commands, pending calls',
  },
  json: {
    alias: 'j',
    type: 'boolean',
    default: false,
    describe: 'With --summary: the summary as one JSON object',
  },
  paths: {
    type: 'string',
    describe: 'Print the unique paths the calls touched, one per line, instead of records; --paths=read or --paths=written for one side',
  },
  null: {
    alias: 'z',
    type: 'boolean',
    default: false,
    describe: 'With --paths: end each path with a NUL byte, not a newline, and write its bytes with nothing made visible, for xargs -0',
  },
  absolute: {
    alias: 'a',
    type: 'boolean',
    default: false,
    describe: "Resolve relative paths against the session's cwd (from system/init); ~/… stays as written",
  },
  full: {
    type: 'boolean',
    default: false,
    describe: 'Records also carry the call\'s args and result as they were (file contents, shell output)',
  },
  tool: {
    alias: 't',
    type: 'string',
    requiresArg: true,
    describe: 'Keep only calls of this tool (name or kind: read, write, edit, delete, shell, ls, glob, grep, mcp); repeatable',
  },
  status: {
    type: 'string',
    requiresArg: true,
    choices: CALL_STATUSES as unknown as string[],
    // Any case, as --tool takes names: `spawnerror` is spawnError.
    coerce: (value: string | string[]) => (Array.isArray(value) ? value.map(canonicalStatus) : canonicalStatus(value)),
    describe: 'Keep only calls with this status (any case); repeatable',
  },
  'deny-read': {
    type: 'string',
    requiresArg: true,
    describe: 'Check: fail if a call read or searched a path matching GLOB, or under a directory it matches (from the cwd, as .gitignore reads it); repeatable',
  },
  'deny-write': {
    type: 'string',
    requiresArg: true,
    describe: 'Check: fail if a call wrote, edited or deleted a path matching GLOB, or under a directory it matches (from the cwd, as .gitignore reads it); repeatable',
  },
  'deny-tool': {
    type: 'string',
    requiresArg: true,
    describe: 'Check: fail if a call used this tool (by name or kind; every tool of an MCP server as mcp__server); repeatable',
  },
  'no-writes': {
    type: 'boolean',
    describe: 'Check: fail if any file was written, edited or deleted',
  },
  writes: { type: 'boolean', hidden: true },
  'require-write': {
    type: 'string',
    requiresArg: true,
    describe: 'Check: fail unless a call successfully wrote or edited a path matching GLOB; repeatable',
  },
  'no-pending': {
    type: 'boolean',
    describe: 'Check: fail if a call started and never completed',
  },
  pending: { type: 'boolean', hidden: true },
} as const satisfies Record<string, Options>;

/** A repeatable option's values: yargs gives one value as a string, several as an array. */
interface ToolsArgs {
  summary: boolean;
  json: boolean;
  paths?: string;
  null: boolean;
  absolute: boolean;
  full: boolean;
  tool?: string | string[];
  status?: string | string[];
  'deny-read'?: string | string[];
  'deny-write'?: string | string[];
  'deny-tool'?: string | string[];
  'require-write'?: string | string[];
  // yargs reads --no-writes and --no-pending as the negation of these.
  writes?: boolean;
  pending?: boolean;
}

const PATHS_CHOICES: readonly string[] = ['all', 'read', 'written'];

export const toolsSpec: CommandSpec<typeof toolsOptions> = {
  name: 'ndjson-tools',
  summary:
    "Audit an agent's tool calls: one NDJSON record per call (started and completed\n" +
    'paired by call id), or a summary, or the paths touched. Checks for CI exit with 3.',
  options: toolsOptions,
  examples: [
    ["ndjson-tools --deny-read '**/.env' --no-pending < run.ndjson", 'fail (3) if the agent read a .env file or a call never completed'],
    ['agent -p --output-format stream-json "fix it" | tee run.ndjson | ndjson-tools --summary', 'what the agent did, for people'],
    ['ndjson-tools --paths=written --absolute -z run.ndjson | xargs -0 -r git diff --', 'the files the agent changed'],
  ],
  // A stream without a result is audited like any other; no command is run.
  statuses: [EXIT.OK, EXIT.USAGE, EXIT.INPUT, EXIT.FAILED, 130],
  statusText: { [EXIT.FAILED]: 'a check failed (one line per violation on stderr)' },
  values: { status: CALL_STATUSES },
  gluedValues: { paths: PATHS_CHOICES },
  // Alone, every path; `--paths read` reads the file `read`.
  bareValues: { paths: 'all' },
  check: (argv) => {
    if (argv.json && !argv.summary) return '--json needs --summary';
    if (argv.summary && argv.paths !== undefined) return '--summary and --paths do not go together';
    if (argv.full && (argv.summary || argv.paths !== undefined)) return '--full only applies to records (not with --summary or --paths)';
    if (Array.isArray(argv.paths)) return '--paths is given once';
    if (argv.null && argv.paths === undefined) return '--null (-z) only applies to --paths';
    if (list(argv.tool)?.some((t) => t === '')) return '--tool needs a non-empty value';
    if (argv.paths !== undefined && !PATHS_CHOICES.includes(String(argv.paths))) {
      return `--paths takes all, read or written (as --paths=read), not '${String(argv.paths)}'`;
    }
    if (argv.writes === true) return 'unknown option: --writes (did you mean --no-writes?)';
    if (argv.pending === true) return 'unknown option: --pending (did you mean --no-pending?)';
    return policyProblem({
      denyRead: list(argv['deny-read']),
      denyWrite: list(argv['deny-write']),
      denyTool: list(argv['deny-tool']),
      requireWrite: list(argv['require-write']),
    });
  },
};

/** Runs ndjson-tools; returns its exit status. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const parsed = parseArgs<typeof toolsOptions, ToolsArgs>(toolsSpec, argv, io);
  if ('code' in parsed) return parsed.code;
  const { args } = parsed;
  const name = toolsSpec.name;
  // What the checks cannot pass (calls the audit does not see) is said, and counted by the core (ToolsCore.passed).
  const consequence = (): string => (core.checking ? ': the checks cannot pass' : '');
  const core: ToolsCore = new ToolsCore({
    summary: args.summary,
    json: args.json,
    paths: args.paths as PathsChoice | undefined,
    nullEnded: args.null,
    absolute: args.absolute,
    full: args.full,
    tools: list(args.tool),
    statuses: list(args.status) as CallStatus[] | undefined,
    denyRead: list(args['deny-read']),
    denyWrite: list(args['deny-write']),
    denyTool: list(args['deny-tool']),
    requireWrite: list(args['require-write']),
    noWrites: args.writes === false,
    noPending: args.pending === false,
    onViolation: (v) => warn(io, name, formatViolation(v)),
    onUnknownCalls: (source, line) => {
      warn(io, name, `${visibleOneLine(source)}:${line}: a tool call that names no tool the audit can find is audited as kind other, with no paths${consequence()}`);
    },
    onDeepSubagent: (source, line) => {
      warn(io, name, `${visibleOneLine(source)}:${line}: the calls of sub-agents nested more than ${MAX_SUBAGENT_DEPTH} deep are not audited${consequence()}`);
    },
    onManyStarts: (source, line, callId) => {
      const call = callId === undefined ? 'a call with no id' : `call ${visibleOneLine(callId)}`;
      warn(io, name, `${visibleOneLine(source)}:${line}: ${call} started more than ${MAX_STARTS} times: the starts after are not audited${consequence()}`);
    },
    // A tool call the audit cannot read (a line cut short, broken) must not pass the checks unseen.
    onUnreadCall: (p) => warn(io, name, `${visibleOneLine(p.source)}:${p.line}: a tool call the audit cannot read (${p.reason}): the checks cannot pass`),
    onMisspeltDenyTool: (tool, known) => {
      warn(io, name, `--deny-tool ${shellWord(tool)} matched no call: did you mean '${known}'?`);
    },
    onMisspeltTool: (tool, known) => {
      warn(io, name, `--tool ${shellWord(tool)} matched no call: did you mean '${known}'?`);
    },
    onNulPath: (path, call) => {
      warn(io, name, `${visibleOneLine(call.source)}:${call.line}: a path holding a NUL byte, which no file's name holds, is not listed with --null: ${visibleOneLine(path)}`);
    },
  });
  const run = await runTool(name, core, args, io, {
    // The checks judge every call: a reader that goes away (| head) does not end the reading.
    readToEnd: core.checking,
  });
  // Without checks, a reader that went away (| head) ends the run quietly.
  if (run.code !== EXIT.OK) return run.code;
  if (core.checking && !core.sawEvents) {
    // Nothing audited is not a pass: an agent that wrote nothing, or a log in another encoding (UTF-16).
    warn(io, name, `the input held no events${run.problems > 0 ? ' that could be read' : ''}: nothing was audited, the checks cannot pass`);
  } else if (core.checking && !core.sawStream) {
    // `--output-format json` output: a result alone lists none of the calls made. Or objects of no run at all (a wrapper's).
    if (core.sawResult) warn(io, name, 'the input held only results (as --output-format json writes), which list no tool calls: nothing was audited, the checks cannot pass');
    else warn(io, name, 'the input held no events of a run: nothing was audited, the checks cannot pass');
  }
  return core.passed ? EXIT.OK : EXIT.FAILED;
}
