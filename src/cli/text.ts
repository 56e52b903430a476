/**
 * ndjson-text: the stream as a person reads it. The final answer by default
 * (what `--output-format text` prints), or with --all the whole transcript,
 * live, with tool lines and prompts.
 */
import type { Options } from 'yargs';
import { commandStartFailure, commandStatus, parseArgs, processIo, runTool, startCommand, warn, EXIT } from './common.js';
import type { CommandSpec, CommonArgs, Io, RunResult } from './common.js';
import { TextCore } from '../text/core.js';
import type { SessionText } from '../text/core.js';
import { resultFailureMessage } from '../events.js';
import { visibleOneLine } from '../safe-text.js';

/** ndjson-text's own options (with the common ones, the whole of its `--help`). */
export const textOptions = {
  all: {
    alias: 'a',
    type: 'boolean',
    default: false,
    describe: 'The whole transcript, each piece of text written as it arrives (a live view)',
  },
  tools: {
    type: 'boolean',
    describe: 'With --all: a line per tool call (on by default; --no-tools hides them)',
  },
  user: {
    type: 'boolean',
    describe: "With --all: the user's prompt, quoted with '> ' (on by default; --no-user hides it)",
  },
  thinking: {
    type: 'boolean',
    describe: "With --all: the thinking text, quoted with '│ ' (off by default)",
  },
  color: {
    type: 'string',
    requiresArg: true,
    describe: 'Colour tool lines, prompts, thinking and session labels: auto (on a terminal, unless NO_COLOR is set), always, never',
    defaultDescription: 'auto',
  },
  raw: {
    type: 'boolean',
    default: false,
    describe: 'Write control characters in the text as they are, instead of making them visible (\\x1b)',
  },
} as const satisfies Record<string, Options>;

interface TextArgs {
  all: boolean;
  tools?: boolean;
  user?: boolean;
  thinking?: boolean;
  color?: string | boolean;
  raw: boolean;
}

const COLOR_WHEN = ['auto', 'always', 'never'] as const;
type ColorWhen = (typeof COLOR_WHEN)[number];

/** `--color` as given (`--no-color` means never), or undefined for a bad value. */
function colorWhen(value: unknown): ColorWhen | undefined {
  if (value === undefined) return 'auto';
  if (value === false) return 'never';
  return COLOR_WHEN.find((w) => w === value);
}

export const textSpec: CommandSpec<typeof textOptions> = {
  name: 'ndjson-text',
  summary:
    "Print an agent's stream as text: each session's final message (what --output-format text prints), or with --all the whole transcript as it arrives.",
  options: textOptions,
  examples: [
    ['agent -p --output-format stream-json "fix the tests" | ndjson-text', 'the final answer'],
    ['agent -p --output-format stream-json "fix the tests" | ndjson-text -a', 'watch the run live (word by word with --stream-partial-output)'],
    ['ndjson-text -a --no-tools --no-user run.ndjson | less', 'all the assistant text of a saved run'],
  ],
  runsCommand: true,
  check: (argv) => {
    if (colorWhen(argv.color) === undefined) return `--color must be auto, always or never, not '${String(argv.color)}'`;
    if (!argv.all) {
      const extra = (['tools', 'user', 'thinking'] as const).find((k) => argv[k] === true);
      if (extra) return `--${extra} needs --all (-a)`;
    }
    return undefined;
  },
};

/** Colour on a terminal unless NO_COLOR is set (to anything but '') or TERM is dumb; --color overrides. */
export function useColor(when: ColorWhen, io: Io): boolean {
  if (when !== 'auto') return when === 'always';
  if (io.stdout.isTTY !== true) return false;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  return io.env.TERM !== 'dumb';
}

function describeSession(s: SessionText): string {
  const id = s.session ? `session ${visibleOneLine(s.session)}, ` : '';
  const at = s.result ? `result at ${visibleOneLine(s.result.source)}:${s.result.line}` : `last event at ${visibleOneLine(s.lastSource)}:${s.lastLine}`;
  return `${id}${at}`;
}

/** Runs ndjson-text; returns its exit status. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const parsed = parseArgs<typeof textOptions, TextArgs>(textSpec, argv, io);
  if ('code' in parsed) return parsed.code;
  const { args } = parsed;
  const name = textSpec.name;
  const core = new TextCore({
    all: args.all,
    tools: args.tools ?? true,
    user: args.user ?? true,
    thinking: args.thinking ?? false,
    color: useColor(colorWhen(args.color) ?? 'auto', io),
    raw: args.raw,
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

/** The status the sessions call for, with a note on stderr for each that did not end well. */
function verdictStatus(name: string, core: TextCore, args: TextArgs & CommonArgs, run: RunResult, io: Io): number {
  const sessions = core.sessions;
  // Under --strict, or when nothing could be read, the I/O error is the whole story.
  if (run.code !== EXIT.OK && ((args.strict && run.problems > 0) || sessions.length === 0)) return run.code;
  if (sessions.length === 0) {
    warn(io, name, 'no result event: the input held no events');
    return run.code || EXIT.NO_RESULT;
  }
  let code: number = EXIT.OK;
  for (const s of sessions) {
    if (s.result === undefined) {
      warn(io, name, `no result event: the agent stopped before finishing (${describeSession(s)})`);
      code = EXIT.NO_RESULT;
    } else if (s.failed) {
      warn(io, name, `the run failed: ${visibleOneLine(resultFailureMessage(s.result.event))} (${describeSession(s)})`);
      if (code === EXIT.OK) code = EXIT.FAILED;
    }
    // Nothing on stdout for a session that had text: say why, and where the text is.
    if (!args.all && s.written === 0 && s.texts > 0 && !s.failed) {
      warn(io, name, `no assistant text after the last tool call; ndjson-text --all shows the whole transcript (${describeSession(s)})`);
    }
  }
  return run.code || code;
}
