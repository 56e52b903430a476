/**
 * ndjson-text: the stream as a person reads it. The final answer by default
 * (what `--output-format text` prints), or with --all the whole transcript,
 * live, with tool lines and prompts.
 */
import type { Options } from 'yargs';
import { parseArgs, processIo, warn, EXIT } from './common.js';
import type { CommandSpec, Io } from './common.js';
import { describeSessionEnd, judgeSessions, runJudged } from './verdict.js';
import { TextCore, noFinalMessage } from '../text/core.js';
import { describeFlushMismatch } from './notes.js';

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
    describe: "With --all: the thinking text (Claude Code's thinking blocks too), quoted with '│ ' (off by default: --no-thinking)",
  },
  color: {
    type: 'string',
    requiresArg: true,
    describe: 'Colour tool lines, prompts, thinking and session labels: auto (on a terminal, unless NO_COLOR is non-empty or TERM=dumb; FORCE_COLOR non-empty: on, off if 0 or false), always, never; --no-color is never',
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
  // Given more than once (in an alias, then on the command line): the last one counts, as with ls(1).
  if (Array.isArray(value)) {
    const each = value.map(colorWhen);
    return each.includes(undefined) ? undefined : each[each.length - 1];
  }
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
  statusText: {
    [EXIT.INPUT]: 'input or output failed, --strict met a bad line, or the command after -- could not be started',
    [EXIT.FAILED]: 'failure reported: a result says the run failed',
  },
  values: { color: COLOR_WHEN },
  negations: ['tools', 'user', 'thinking', 'color'],
  check: (argv) => {
    const badColor = (Array.isArray(argv.color) ? argv.color : [argv.color]).find((v) => colorWhen(v) === undefined);
    if (badColor !== undefined) return `--color must be auto, always or never, not '${String(badColor)}'`;
    if (!argv.all) {
      const extra = (['tools', 'user', 'thinking'] as const).find((k) => argv[k] === true);
      if (extra) return `--${extra} needs --all (-a)`;
    }
    return undefined;
  },
};

/**
 * Colour on a terminal unless NO_COLOR is set (to anything but '') or TERM is
 * dumb; FORCE_COLOR, set to anything but '', decides before those (on
 * whatever stdout is; off when it is `0` or `false`, as Node and chalk read
 * it); --color decides before all of them.
 */
export function useColor(when: ColorWhen, io: Io): boolean {
  if (when !== 'auto') return when === 'always';
  const force = io.env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (io.stdout.isTTY !== true) return false;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  return io.env.TERM !== 'dumb';
}

/** Runs ndjson-text; returns its exit status. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const parsed = parseArgs<typeof textOptions, TextArgs>(textSpec, argv, io);
  if ('code' in parsed) return parsed.code;
  const { args } = parsed;
  const name = textSpec.name;
  const core = new TextCore({
    all: args.all,
    // Without --all, none is given (the check refuses them); with it, the core has the tool lines and prompt on unless off.
    tools: args.tools,
    user: args.user,
    thinking: args.thinking ?? false,
    color: useColor(colorWhen(args.color) ?? 'auto', io),
    raw: args.raw,
    // The deltas are the text, as ndjson-dedupe has it; a flush that says otherwise is worth a note.
    onFlushMismatch: (m) => warn(io, name, describeFlushMismatch(m, 'not shown', false)),
  });
  return runJudged(name, core, args, parsed.rest, io, (run) => {
    return judgeSessions(name, core.sessions, args, run, io, {
      more: (s) => {
        // Nothing on stdout for a session that wrote text or called tools: say why, and where the transcript is.
        if (!args.all && noFinalMessage(s) && !s.failed) {
          warn(io, name, `no assistant text after the last tool call; ndjson-text --all shows the whole transcript (${describeSessionEnd(s)})`);
        }
      },
    });
  });
}
