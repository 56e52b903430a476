/**
 * What every command of the toolkit shares: the exit-status table, the
 * options every tool takes, argument parsing with yargs, warnings on stderr,
 * and running a tool's stream from the inputs to stdout.
 */
import yargs from 'yargs';
import type { Argv, Options } from 'yargs';
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { LineTooLongError, formatProblem, scanReadBuffers } from '../io/input.js';
import type { InputProblem } from '../io/input.js';
import { namedPipes, closeEnd, readEnd } from '../io/command-pipes.js';
import { ReadPool, openSources, describeError, isDirectory, isExecutableFile, isFile, outputFile, pathExists, sameFile } from '../io/sources.js';
import { toolStream, StrictError } from '../io/tool-stream.js';
import type { ToolCore, ToolTransform } from '../io/tool-stream.js';
import { runOutput, guardOutput, untilClosed, writeAll } from '../io/output.js';
import { visibleOneLine } from '../safe-text.js';
import { VERSION } from '../version.js';
import { EXIT, EXIT_TABLE } from '../exit.js';

export { EXIT, EXIT_TABLE } from '../exit.js';

/** The signals a tool ends on, and the status each gives. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/** Where SIGINT and SIGTERM arrive: the process ({@link ProcessSignals}), or a test's emitter. */
export interface SignalSource {
  on(signal: StopSignal, listener: (signal: StopSignal) => void): unknown;
  off(signal: StopSignal, listener: (signal: StopSignal) => void): unknown;
  /** The first signal that came, listened for or not (null: none yet; undefined: not kept). */
  readonly received?: StopSignal | null;
  /**
   * Adds what must be done, at once, when a second signal ends the process
   * (a command run after `--` still at work is killed); gives what takes it back.
   */
  atLast?(action: (signal: StopSignal) => void): () => void;
  /**
   * Adds what must be done, at once, when SIGHUP ends the process (a command
   * run after `--` is given it too); gives what takes it back.
   */
  atHangup?(action: () => void): () => void;
}

/** What {@link ProcessSignals} catches signals on, and how it ends the process: Node's, or a test's. */
export interface SignalTarget {
  on(signal: StopSignal | 'SIGHUP', listener: (signal: StopSignal) => void): unknown;
  off(signal: StopSignal | 'SIGHUP', listener: (signal: StopSignal) => void): unknown;
  kill(pid: number, signal: StopSignal | 'SIGHUP'): unknown;
  readonly pid: number;
}

/**
 * How soon after the first signal the same one again is taken for it, sent
 * twice (see ProcessSignals): a second signal meant as one (Ctrl-C pressed
 * again) comes later than this.
 */
export const SAME_SIGNAL_MS = 100;

/**
 * SIGINT and SIGTERM as a run of the process sees them. They are caught from
 * the first time a tool listens (as its reading starts) until the process
 * exits, and the first is kept: one that comes while nothing listens (the
 * input just ended, the verdict being written) still ends the run with its
 * status. Dropped, it would leave the verdict's: 0 for a job cancelled as its
 * agent's output ended, where a signal sent to the whole process group
 * (`timeout`, a CI cancel, Ctrl-C) ends the agent's output and reaches the
 * tool at once. The first signal goes to whoever listens then, and to whoever
 * listens for it later; a second ends the process at once, as Node's default
 * does, once the actions given to {@link atLast} are done. The same signal
 * again within {@link SAME_SIGNAL_MS} of the first is no second: `timeout`
 * sends SIGTERM to the tool and then to its process group.
 */
export class ProcessSignals implements SignalSource {
  private first: StopSignal | null = null;
  /** When the first came, by {@link now}. */
  private firstAt = 0;
  private caught = false;
  private readonly listeners = new Set<{ signal: StopSignal; listener: (signal: StopSignal) => void }>();
  private readonly lastActions = new Set<(signal: StopSignal) => void>();
  private readonly hangupActions = new Set<() => void>();

  constructor(
    private readonly target: SignalTarget = process as unknown as SignalTarget,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get received(): StopSignal | null {
    return this.first;
  }

  on(signal: StopSignal, listener: (signal: StopSignal) => void): this {
    if (!this.caught) {
      this.caught = true;
      this.target.on('SIGINT', this.onSignal);
      this.target.on('SIGTERM', this.onSignal);
    }
    this.listeners.add({ signal, listener });
    // One that came before it listened (the run's output had ended, or it had not started reading) is its too.
    if (this.first === signal) listener(signal);
    return this;
  }

  off(signal: StopSignal, listener: (signal: StopSignal) => void): this {
    for (const l of this.listeners) if (l.signal === signal && l.listener === listener) this.listeners.delete(l);
    return this;
  }

  atLast(action: (signal: StopSignal) => void): () => void {
    this.lastActions.add(action);
    return () => void this.lastActions.delete(action);
  }

  /** SIGHUP is caught only while an action waits for it: otherwise its default action ends the process, as Node's does. */
  atHangup(action: () => void): () => void {
    if (this.hangupActions.size === 0) this.target.on('SIGHUP', this.onHangup);
    this.hangupActions.add(action);
    return () => {
      if (this.hangupActions.delete(action) && this.hangupActions.size === 0) this.target.off('SIGHUP', this.onHangup);
    };
  }

  private readonly onHangup = (): void => {
    this.target.off('SIGHUP', this.onHangup);
    for (const action of [...this.hangupActions]) {
      try {
        action();
      } catch {
        // The process ends all the same.
      }
    }
    this.hangupActions.clear();
    this.target.kill(this.target.pid, 'SIGHUP');
  };

  private readonly onSignal = (signal: StopSignal): void => {
    // The same signal again at once is the first sent twice, not a second: GNU `timeout` sends its signal to the tool,
    // then to the whole process group, the tool in it, and a CI runner may do the same.
    if (this.first === signal && this.now() - this.firstAt < SAME_SIGNAL_MS) return;
    if (this.first !== null) {
      // No handler left: the signal's default action ends the process.
      this.target.off('SIGINT', this.onSignal);
      this.target.off('SIGTERM', this.onSignal);
      for (const action of [...this.lastActions]) {
        try {
          action(signal);
        } catch {
          // The process ends all the same.
        }
      }
      this.target.kill(this.target.pid, signal);
      return;
    }
    this.first = signal;
    this.firstAt = this.now();
    for (const l of [...this.listeners]) if (l.signal === signal) l.listener(signal);
  };
}

/** A run's status, once its signals are weighed: a signal that came gives its own (130, 143), whatever the run found. */
export function finalStatus(code: number, signals: SignalSource | undefined): number {
  const signal = signals?.received;
  return signal ? SIGNAL_STATUS[signal] : code;
}

/** Where a command reads and writes: the process's streams, or a test's. */
export interface Io {
  stdin: NodeJS.ReadableStream;
  /**
   * The file descriptor of standard input when `stdin` is the process's own
   * and is not to be made before it is needed: a regular file, a pipe or a
   * socket on it is read from the descriptor, into reused buffers.
   */
  stdinFd?: number;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  /** The file descriptor `stdout` writes to, when it is the process's own: an input that is the file it writes to is not read. */
  stdoutFd?: number;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /**
   * True when stdout and stderr are one file, pipe or terminal (`2>&1`).
   * Without it, they are taken as one when both are terminals.
   */
  readonly sharedOutput?: boolean;
  env: NodeJS.ProcessEnv;
  /** Where SIGINT and SIGTERM arrive while the input is read; without it they are not caught. */
  signals?: SignalSource;
  /** Called when a tool starts reading its input from the start (not when it answers from a file's end). */
  onRead?: () => void;
}

/**
 * Standard error that cannot be written (`2>/dev/full`, a closed pipe)
 * loses the warnings, not the run: its status stays the verdict's. Without
 * a listener, Node would end the process on the stream's error with status
 * 1 (bad usage, to a script) and a stack trace.
 */
let stderrQuieted = false;
function quietStderr(): void {
  if (stderrQuieted) return;
  stderrQuieted = true;
  process.stderr.on('error', () => {});
}

/** The process's own streams, environment and signals. */
export function processIo(): Io {
  quietStderr();
  return {
    // Made on first use only: Node's stream would open the pipe on descriptor 0 for itself.
    get stdin() {
      return process.stdin;
    },
    stdinFd: 0,
    stdout: process.stdout,
    stdoutFd: 1,
    stderr: process.stderr,
    get sharedOutput() {
      return sameFile(1, 2);
    },
    env: process.env,
    signals: new ProcessSignals(),
  };
}

/** Options every tool takes. */
export const commonOptions = {
  strict: {
    type: 'boolean',
    default: false,
    describe: 'Fail (status 2) at the first line that is not a JSON object event',
  },
  quiet: {
    alias: 'q',
    type: 'boolean',
    default: false,
    describe: 'Do not warn about lines that are not events',
  },
  completion: {
    type: 'string',
    describe: 'Print a completion script for bash or zsh (default: the shell in $SHELL)',
  },
} as const satisfies Record<string, Options>;

/** The hidden yargs command that prints the completion script (a name no input file has). */
const COMPLETION_COMMAND = '__ndjson_agent_completion';

/** Arguments every tool receives. */
export interface CommonArgs {
  strict: boolean;
  quiet: boolean;
  /** Input files; empty means stdin. */
  files: string[];
}

/** A command's description for {@link parseArgs}. */
export interface CommandSpec<O extends Record<string, Options>> {
  name: string;
  /** One line: what the command does. */
  summary: string;
  /** The command's own options (the common ones are added). */
  options: O;
  /** Two or three one-line pipeline examples: [command, what it does]. */
  examples: ReadonlyArray<readonly [string, string]>;
  /** Checks that go beyond one option's type; returns an error message or undefined. */
  check?: (argv: Record<string, unknown>) => string | undefined;
  /** The command can run an agent given after `--` and read its output. */
  runsCommand?: boolean;
  /** The statuses of {@link EXIT_TABLE} the command can end with, when not all: its `--help` lists these. */
  statuses?: readonly number[];
  /** The command's own words for some statuses in its `--help`, where the table's do not say all. */
  statusText?: Readonly<Partial<Record<number, string>>>;
  /** The values a shell completes after an option that takes one of a few (`--color`: auto, always, never). */
  values?: Readonly<Record<string, readonly string[]>>;
  /** The same for an option whose value is given only after `=` (`--paths=read`; `--paths read` reads the file `read`). */
  gluedValues?: Readonly<Record<string, readonly string[]>>;
  /** The options whose value may be left out, and the value each then has (`--paths` is `--paths=all`): given only after `=`. */
  bareValues?: Readonly<Record<string, string>>;
  /** Options whose `--no-` form the command documents (`--no-tools`), offered by shell completion too. */
  negations?: readonly string[];
}

/** Values every command completes after `=`: those of the common options. */
const COMMON_GLUED_VALUES: Readonly<Record<string, readonly string[]>> = { completion: ['bash', 'zsh'] };

/** The common options whose value may be left out (see CommandSpec.bareValues): `--completion` alone asks for $SHELL's. */
const COMMON_BARE_VALUES: Readonly<Record<string, string>> = { completion: '' };

/** The width `--help` is laid out in: the terminal's, up to 100 columns; 80 when it is not a terminal (`| less`). */
function helpWidth(): number {
  return Math.min(100, process.stdout.columns ?? 80);
}

/** `text` in lines of at most `width` columns, each after `indent` spaces: as yargs would wrap it, but indented. */
function wrapped(text: string, indent: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && indent + line.length + 1 + word.length > width) {
      lines.push(' '.repeat(indent) + line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(' '.repeat(indent) + line);
  return lines;
}

/** A shell operator, which a cut line of an example does not end with (see exampleLines). */
const OPERATOR = /^(\||>|>>|<|&&|\|\|)$/;

/**
 * An example command as lines of `--help` at most `width` wide: on one line where it fits, else cut
 * between words (never inside quotes, and before a `|` rather than after it) and carried on with a
 * backslash, indented, so that the lines copied are still the command. A word wider than a line
 * stays whole.
 */
export function exampleLines(command: string, width: number): string[] {
  if (2 + command.length <= width) return [`  ${command}`];
  // Words: spaces inside quotes are the word's.
  const words = command.match(/(?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+/g) ?? [command];
  const lines: string[][] = [[]];
  for (const [i, word] of words.entries()) {
    const line = lines[lines.length - 1]!;
    const indent = lines.length === 1 ? 2 : 4;
    // Room for this word, and for ` \` after it unless it is the last.
    const wide = indent + [...line, word].join(' ').length + (i === words.length - 1 ? 0 : 2);
    if (line.length > 0 && wide > width) lines.push([...line.splice(line.length - carried(line, word, width)), word]);
    else line.push(word);
  }
  return lines.map((line, i) => `${i === 0 ? '  ' : '    '}${line.join(' ')}${i === lines.length - 1 ? '' : ' \\'}`);
}

/**
 * How many of the last words of `line`, too full for `word`, go on to the next line with it: those from its last `|`
 * where they fit there; else a `|` or `>` that ends it, with what it pipes into or writes to; else none.
 */
function carried(line: readonly string[], word: string, width: number): number {
  const pipe = line.lastIndexOf('|');
  if (pipe > 0 && 4 + [...line.slice(pipe), word].join(' ').length + 2 <= width) return line.length - pipe;
  return line.length > 1 && OPERATOR.test(line[line.length - 1]!) ? 1 : 0;
}

/**
 * The epilogue of every `--help`, `width` columns wide: the examples (see exampleLines), and the statuses of the
 * exit-status table the command can end with, each text carried on indented.
 */
function epilogue<O extends Record<string, Options>>(spec: CommandSpec<O>, width: number): string {
  const rows = EXIT_TABLE.filter(([code]) => spec.statuses === undefined || spec.statuses.includes(code));
  return [
    'Examples:',
    ...spec.examples.flatMap(([command, text]) => [...exampleLines(command, width), ...wrapped(text, 6, width)]),
    '',
    'Exit status:',
    ...rows.flatMap(([code, text]) => {
      const [first, ...rest] = wrapped(spec.statusText?.[code] ?? text, 6, width);
      return [`  ${String(code).padEnd(4)}${first!.trimStart()}`, ...rest];
    }),
  ].join('\n');
}

function configure<O extends Record<string, Options>>(spec: CommandSpec<O>, args: string[]): Argv {
  const y = yargs(args)
    .scriptName(spec.name)
    .usage(
      `Usage: $0 [options] [file ...]${spec.runsCommand ? '\nUsage: $0 [options] -- command [arg ...]' : ''}\n\n${spec.summary}\n` +
        `With no file, or when file is -, read standard input.` +
        (spec.runsCommand ? `\nWith -- command, run it and read its standard output.` : ''),
    )
    .options({ ...spec.options, ...commonOptions })
    .strictOptions()
    .exitProcess(false)
    .version(VERSION)
    .alias('V', 'version')
    .help()
    .alias('h', 'help')
    // Words are kept as written: a file named `1.50`, a command's `0x10` after `--`.
    // Options as they are spelled, not also in camel case: `--noWrites` is no option (yargs read it as set, and the check off).
    .parserConfiguration({ 'populate--': true, 'boolean-negation': true, 'parse-positional-numbers': false, 'camel-case-expansion': false, 'dot-notation': false })
    .completion(COMPLETION_COMMAND, false)
    .epilogue(epilogue(spec, helpWidth()))
    .wrap(helpWidth());
  return y;
}

/** The `--help` text of a command (for tests and the man page check). */
export async function helpText<O extends Record<string, Options>>(spec: CommandSpec<O>): Promise<string> {
  return configure(spec, ['--help']).getHelp();
}

/** The completion script yargs writes for `shell`, with the command that prints it named as users call it. */
function completionScript<O extends Record<string, Options>>(spec: CommandSpec<O>, shell: 'bash' | 'zsh'): string {
  // yargs picks the script by the SHELL variable.
  const saved = process.env.SHELL;
  process.env.SHELL = shell === 'zsh' ? '/bin/zsh' : '/bin/bash';
  let script = '';
  try {
    configure(spec, [COMPLETION_COMMAND]).parse([COMPLETION_COMMAND], {}, (_err: unknown, _argv: unknown, out: string) => {
      script = out;
    });
  } finally {
    if (saved === undefined) delete process.env.SHELL;
    else process.env.SHELL = saved;
  }
  script = script.split(`${spec.name} ${COMPLETION_COMMAND}`).join(`${spec.name} --completion=${shell}`);
  // bash makes the `=` of `--color=` the word completed: what replaces it is typed after it, so values are matched against
  // nothing typed yet.
  const word = '    cur_word="${COMP_WORDS[COMP_CWORD]}"\n';
  if (shell === 'bash' && script.includes(word)) script = script.replace(word, `${word}    [[ $cur_word == "=" ]] && cur_word=""\n`);
  // The words up to the one completed, not those after it (TAB in the middle of a line): yargs takes the last word given
  // for the one completed.
  script = script.replace('args=("${COMP_WORDS[@]}")', 'args=("${COMP_WORDS[@]:0:COMP_CWORD+1}")');
  script = script.replace('--get-yargs-completions "${words[@]}"', '--get-yargs-completions "${(@)words[1,CURRENT]}"');
  return script.endsWith('\n') ? script : `${script}\n`;
}

/**
 * Outcome of parsing: the arguments, or the exit status when parsing
 * already answered (help, version, completion: once the answer is written;
 * a usage error).
 */
export type Parsed<A> = { args: A & CommonArgs; rest: string[] } | { code: number | Promise<number> };

/** Writes what `--help`, `--version` or `--completion` answer; its status: 0, or 2 when it cannot be written (a closed pipe is no error). */
async function answer(name: string, io: Io, text: string): Promise<number> {
  guardOutput(io.stdout);
  const outcome = await writeAll(io.stdout, text);
  if (outcome.kind !== 'write-error') return EXIT.OK;
  warn(io, name, `write error: ${outcome.message}`);
  return EXIT.INPUT;
}

/**
 * Parses `argv` for a command. `--help` and `--version` are printed to stdout;
 * a usage error is one line on stderr and status 1.
 */
export function parseArgs<O extends Record<string, Options>, A>(spec: CommandSpec<O>, given: string[], io: Io): Parsed<A> {
  const options = { ...spec.options, ...commonOptions };
  const argv = shortValues(options, given, { ...COMMON_BARE_VALUES, ...spec.bareValues });
  let failure: string | null = flagGivenValue(options, argv, spec.negations ?? []) ?? null;
  let output = '';
  const y = configure(spec, argv).fail((msg, err) => {
    // The first problem found is the one reported: a flag given a value makes yargs see an unknown option too.
    failure ??= msg === null || msg === undefined ? (err?.message ?? 'bad usage') : usageMessage(msg, argv);
  });
  let parsed: Record<string, unknown>;
  try {
    parsed = y.parse(argv, {}, (_err: Error | undefined, _argv: unknown, out: string) => {
      output = out;
    }) as Record<string, unknown>;
  } catch (error) {
    failure ??= (error as Error).message;
    parsed = {};
  }
  failure ??= dashesTaken(options, parsed, argv);
  // yargs answers `--help` (or `--version`) before it checks the rest: `--bogus -h` is bad usage all the same, as in GNU tools.
  // (Not for the shell's completion, which asks with the words typed so far.)
  if (failure === null && (parsed.help || parsed.version) && parsed['get-yargs-completions'] === undefined) failure = usageProblem(spec, argv, io.env);
  // The completion scripts ask with it first; elsewhere (`FILE --get-yargs-completions`) it is no option of ours, and would skip the run.
  if (failure === null && parsed['get-yargs-completions'] !== undefined && argv[0] !== '--get-yargs-completions') {
    failure = `unknown option: --get-yargs-completions`;
  }
  if (failure === null && parsed['get-yargs-completions'] !== undefined) {
    // yargs also offers one-letter aliases as `--a`: no one types those.
    const words = output.split('\n').filter((word) => word !== '' && !/^--\w$/.test(word));
    // After `--`, the words are the command's: nothing is offered (the shell offers file names).
    if (argv.slice(2, -1).includes('--')) return { code: answer(spec.name, io, '') };
    // After an option that takes one of a few values, those values; else the options, their documented `--no-` forms too.
    // The value typed after `=`: zsh asks with `--color=al` as one word, which the values offered replace whole; bash
    // splits it at the `=` (`--color`, `=`, `al`; with nothing typed yet, `=` is the last word), and replaces only `al`.
    const n = argv.length;
    let current = argv[n - 1] ?? '';
    let before = argv[n - 2];
    let prefix = '';
    let afterEquals = true;
    const glued = /^--([^=]+)=(.*)$/s.exec(current);
    if (glued !== null) {
      before = `--${glued[1]}`;
      prefix = `${before}=`;
      current = glued[2]!;
    } else if (current === '=') current = '';
    else if (before === '=') before = argv[n - 3];
    else afterEquals = false;
    const option = before === undefined ? undefined : /^--([^=]+)$/.exec(before)?.[1];
    const values =
      option === undefined ? undefined : (spec.values?.[option] ?? (afterEquals ? (spec.gluedValues?.[option] ?? COMMON_GLUED_VALUES[option]) : undefined));
    // A word that does not start with `-` (none typed yet, too) is a file's: nothing is offered, and the shell offers file
    // names, as it does for cat(1); the options are offered once `-` is typed.
    const offered =
      values !== undefined
        ? values.filter((v) => v.startsWith(current)).map((v) => prefix + v)
        : current.startsWith('-')
          ? [...words, ...(spec.negations ?? []).map((n) => `--no-${n}`)]
          : [];
    return { code: answer(spec.name, io, offered.map((word) => `${word}\n`).join('')) };
  }
  if (failure === null && (parsed.help || parsed.version)) {
    return { code: answer(spec.name, io, output.endsWith('\n') ? output : `${output}\n`) };
  }
  if (failure === null && parsed.completion !== undefined) {
    // The rest of the line is checked as for a run: `--completion bash --summary --paths` is bad usage all the same.
    const shell = completionShell(parsed.completion, io.env);
    if ('failure' in shell) failure = shell.failure;
    else {
      failure = spec.check?.(parsed) ?? commandProblem(spec, parsed, argv) ?? completionOperands(parsed);
      if (failure === null) return { code: answer(spec.name, io, completionScript(spec, shell.shell)) };
    }
  }
  if (failure === null && spec.check) failure = spec.check(parsed) ?? null;
  failure ??= commandProblem(spec, parsed, argv);
  if (failure !== null) return usageError(spec.name, io, failure);
  const files = (parsed._ as unknown[]).map(String).map(unheld);
  const rest = ((parsed['--'] as unknown[] | undefined) ?? []).map(String);
  return { args: { ...(parsed as A & CommonArgs), files }, rest };
}

/**
 * The unknown options of `parsed` when one of them took `--` as its value,
 * or null. yargs gives an unknown option right before `--` that word
 * (`-x -- -h` was `-x` set to `--`, then `--help`, answered with status
 * 0), where getopt(3) ends the options at `--`: reported as yargs reports
 * unknown options. (An option of ours takes `--` as its value only where
 * it must have one: `-k --`.)
 */
function dashesTaken(options: Record<string, Options>, parsed: Record<string, unknown>, argv: readonly string[]): string | null {
  if (argv[0] === '--get-yargs-completions') return null;
  const known = new Set(['_', '--', '$0', 'help', 'h', 'version', 'V']);
  for (const [name, option] of Object.entries(options)) for (const n of optionNames(name, option)) known.add(n);
  const unknown = Object.keys(parsed).filter((key) => !known.has(key));
  if (!unknown.some((key) => parsed[key] === '--')) return null;
  return usageMessage(`Unknown argument${unknown.length === 1 ? '' : 's'}: ${unknown.join(', ')}`, argv);
}

/** What is wrong with the words after `--` of `argv` as parsed (`parsed['--']`), or null: a command where none is run, none given, files beside it. */
function commandProblem<O extends Record<string, Options>>(spec: CommandSpec<O>, parsed: Record<string, unknown>, argv: readonly string[]): string | null {
  const files = ((parsed._ as unknown[] | undefined) ?? []).map(String);
  const rest = ((parsed['--'] as unknown[] | undefined) ?? []).map(String);
  if (rest.length > 0 && !spec.runsCommand) return `unexpected arguments after --: ${rest.join(' ')}`;
  if (rest.length === 0 && spec.runsCommand && argv.includes('--')) return 'no command after --';
  // `-- $(AGENT)` with the variable empty, quoted.
  if (rest.length > 0 && rest[0] === '') return 'the command after -- is empty';
  if (rest.length > 0 && files.length > 0) return 'give either files or -- command, not both';
  return null;
}

/**
 * Writes a usage error, what the command line gave made visible (a file
 * name from a glob may hold an escape sequence), and returns its status.
 */
function usageError(name: string, io: Io, failure: string): { code: number } {
  io.stderr.write(`${name}: ${visibleOneLine(failure)}\nTry '${name} --help' for more information.\n`);
  return { code: EXIT.USAGE };
}

/**
 * The usage error `argv` holds but for its `--help` and `--version` (which
 * yargs answers first, checking nothing), or null: yargs's, the command's
 * own checks', or `--completion`'s.
 */
function usageProblem<O extends Record<string, Options>>(spec: CommandSpec<O>, argv: readonly string[], env: NodeJS.ProcessEnv): string | null {
  // The words and letters that ask for them left out (`-ah` is `-a`); the value a letter took is a word of its own by now.
  const rest = mapOptionWords(argv, (arg) => {
    if (arg === '--help' || arg === '--version') return [];
    if (!/^-[A-Za-z]+$/.test(arg)) return [arg];
    const letters = arg.slice(1).replace(/[hV]/g, '');
    return letters === '' ? [] : [`-${letters}`];
  });
  let failure: string | null = null;
  const y = configure(spec, rest).fail((msg, err) => {
    failure ??= msg === null || msg === undefined ? (err?.message ?? 'bad usage') : usageMessage(msg, rest);
  });
  let parsed: Record<string, unknown> = {};
  try {
    parsed = y.parse(rest, {}, () => undefined) as Record<string, unknown>;
  } catch (error) {
    failure ??= (error as Error).message;
  }
  if (failure === null && parsed.completion !== undefined) {
    const shell = completionShell(parsed.completion, env);
    failure = 'failure' in shell ? shell.failure : completionOperands(parsed);
  }
  if (failure === null && spec.check) failure = spec.check(parsed) ?? null;
  return failure ?? commandProblem(spec, parsed, rest);
}

/**
 * What is wrong with the words beside `--completion` that are no options,
 * or null: it prints a script and reads nothing, so a file (or a command
 * after `--`) given with it is a usage error, not left unread. A shell
 * written after a space (`--completion zsh`, which getopt_long(3) reads as
 * a file) is said to be given after `=`: the script of $SHELL's shell would
 * be the wrong one.
 */
function completionOperands(parsed: Record<string, unknown>): string | null {
  const files = ((parsed._ as unknown[] | undefined) ?? []).map(String);
  const command = ((parsed['--'] as unknown[] | undefined) ?? []).map(String);
  if (files.length === 0 && command.length === 0) return null;
  if (files.length === 0) return '--completion runs no command';
  const file = files[0]!;
  const hint = file === 'bash' || file === 'zsh' ? ` (a shell is given as --completion=${file})` : '';
  return `--completion reads no file: ${visibleOneLine(file)}${hint}`;
}

/** The shell `--completion` asks for: its value, or for none, the one $SHELL names (`/bin/zsh`, `/usr/local/bin/bash5`), bash when it names none. */
function completionShell(value: unknown, env: NodeJS.ProcessEnv): { shell: 'bash' | 'zsh' } | { failure: string } {
  // yargs makes an option given twice an array: `--completion --completion` was `not ,`.
  if (Array.isArray(value)) return { failure: '--completion is given once' };
  const login = (env.SHELL ?? '').split('/').pop() ?? '';
  const shell = String(value) || (login.startsWith('zsh') ? 'zsh' : login.startsWith('bash') || login === '' ? 'bash' : login);
  if (shell === 'bash' || shell === 'zsh') return { shell };
  return { failure: `--completion takes bash or zsh, not ${visibleOneLine(shell)}${String(value) === '' ? ' (the shell $SHELL names)' : ''}` };
}

/**
 * The words of the command line as yargs must be given them to read them as
 * getopt(3) and getopt_long(3) do:
 * - a one-letter option's value glued on is the rest of the word, whatever
 *   it is: `-tshell` is the tool `shell`, `-jfthe` is `-j` and the field
 *   `the`, `-f=x` the field `=x`, `-f/` the field `/`; given to yargs as
 *   `--tool=shell` (yargs read the letters after the first as more
 *   one-letter options, unless the first of them was a digit or a sign, so
 *   that `-tshell` was `--help`, and `-f=x` the field `x`);
 * - an option that must have a value takes the next word whatever it starts
 *   with (see {@link dashedValues});
 * - an option whose value may be left out takes one only after `=`
 *   (`bare`: the value each has alone, see CommandSpec.bareValues);
 * - a word `true` or `false` that is no option's value is a file's (yargs
 *   took it as the value of the flag before it): held as such (see
 *   {@link unheld}).
 * The words after `--` are left as they are, and so are those the shell's
 * completion asks with.
 */
export function shortValues(options: Record<string, Options>, argv: readonly string[], bare: Readonly<Record<string, string>> = {}): string[] {
  if (argv[0] === '--get-yargs-completions') return [...argv];
  const flags = new Set(['h', 'V']);
  const valued = new Map<string, string>();
  const takesValue = new Set<string>();
  for (const [name, option] of Object.entries(options)) {
    const letters = optionNames(name, option).filter((n) => n.length === 1);
    if (option.type === 'boolean') for (const letter of letters) flags.add(letter);
    else {
      for (const letter of letters) valued.set(letter, name);
      if (!(name in bare)) for (const n of [name, ...letters]) takesValue.add(n);
    }
  }
  // The word before was an option given without its value: this word is that value.
  let value = false;
  const hold = (arg: string): string => {
    const isValue = value;
    value = givenBare(arg, takesValue);
    return !isValue && (arg === 'true' || arg === 'false') ? `${HELD}${arg}` : arg;
  };
  return mapOptionWords(dashedValues(options, flags, argv, bare), (arg) => splitShort(arg, flags, valued).map(hold));
}

/** A name and the aliases of an option. */
function optionNames(name: string, option: Options): string[] {
  return [name, ...[option.alias ?? []].flat()];
}

/** True when the word `arg` is an option of `valued` given without its value (`--field`, `-f`, `-af`): the next word is that value. */
function givenBare(arg: string, valued: ReadonlySet<string>): boolean {
  return valued.has(/^--([^=]+)$/.exec(arg)?.[1] ?? /^-[A-Za-z]*([A-Za-z])$/.exec(arg)?.[1] ?? '');
}

/** What a word yargs must read as a file's starts with: no word of a command line holds it. */
const HELD = '\0';

/** A word {@link shortValues} held, as it was given. */
function unheld(word: string): string {
  return word.startsWith(HELD) ? word.slice(HELD.length) : word;
}

/**
 * An option that must have a value, followed by a word that starts with a
 * dash: that word is its value, as getopt(3) reads it (`-t -s` is the tool
 * `-s`; `--field --json`, the field `--json`; `-k --`, the key `--`), made
 * one word with it as yargs reads such a value (`-t-s`, `--field=--json`),
 * where yargs would say the option needs a value. An option whose value may
 * be left out (`--paths`, `--completion`), given alone, is given its value
 * alone has (`--paths=all`), as getopt_long(3) takes its value only after
 * `=`.
 */
function dashedValues(options: Record<string, Options>, flags: ReadonlySet<string>, argv: readonly string[], bare: Readonly<Record<string, string>>): string[] {
  const required = new Set<string>();
  for (const [name, option] of Object.entries(options)) if (option.requiresArg === true) for (const n of optionNames(name, option)) required.add(n);
  return mapOptionWords(argv, (arg, next) => {
    const alone = arg.startsWith('--') ? bare[arg.slice(2)] : undefined;
    if (alone !== undefined) return [`${arg}=${alone}`];
    if (next === undefined || !next.startsWith('-')) return [arg];
    const long = /^--([^=]+)$/.exec(arg)?.[1];
    if (long !== undefined && required.has(long)) return { withNext: [`${arg}=${next}`] };
    const short = /^-([A-Za-z]+)$/.exec(arg)?.[1];
    if (short !== undefined && required.has(short[short.length - 1]!) && [...short.slice(0, -1)].every((letter) => flags.has(letter))) {
      return { withNext: [`${arg}${next}`] };
    }
    return [arg];
  });
}

/** What a {@link mapOptionWords} map gives for a word that takes the word after it (an option's value, a `--` too): the words for both. */
interface WithNext {
  withNext: string[];
}

/**
 * The words of `argv` before `--` each made into the words `map` gives for
 * it (`next`: the word after it, which it may take, see WithNext); `--` and
 * the words after it as they are.
 */
function mapOptionWords(argv: readonly string[], map: (arg: string, next: string | undefined) => string[] | WithNext): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const words = map(arg, argv[i + 1]);
    if (Array.isArray(words)) out.push(...words);
    else {
      out.push(...words.withNext);
      i++;
    }
  }
  return out;
}

/** One word of the command line, a one-letter option's value glued on given as its long option's (see {@link shortValues}). */
function splitShort(arg: string, flags: ReadonlySet<string>, valued: ReadonlyMap<string, string>): string[] {
  if (!/^-[A-Za-z]/.test(arg)) return [arg];
  for (let k = 1; k < arg.length; k++) {
    const letter = arg[k]!;
    if (flags.has(letter)) continue;
    const name = valued.get(letter);
    if (name === undefined || k === arg.length - 1) return [arg];
    return [...(k > 1 ? [arg.slice(0, k)] : []), `--${name}=${arg.slice(k + 1)}`];
  }
  return [arg];
}

/**
 * yargs's usage messages as a user reads them, each on one line. `Unknown
 * arguments: deny-reads, denyReads` names the options as they were typed:
 * `unknown option: --deny-reads` (yargs names each without its dashes, once
 * more in camel case, and `--no-x` as x). A word of the command line that
 * starts with one dash and names a file is read as letters of options: the
 * message says how to name that file. Any other message is left as it is.
 */
function usageMessage(msg: string, argv: readonly string[]): string {
  // yargs's `Invalid values:\n  Argument: status, Given: "nope", Choices: "success", …` on one line.
  const invalid = /^Invalid values:\s+Argument: (.+?), Given: (.+?), Choices: (.+)$/s.exec(msg);
  if (invalid !== null) return `--${invalid[1]} must be one of ${invalid[3]!.replace(/\s+/g, ' ')}, not ${invalid[2]}`;
  // yargs's `Not enough arguments following: f`, for an option given last without its value.
  const bare = /^Not enough arguments following: (.+)$/.exec(msg);
  if (bare !== null) return `${bare[1]!.length === 1 ? '-' : '--'}${bare[1]} needs a value`;
  const found = /^Unknown arguments?: (.*)$/.exec(msg);
  if (found === null) return msg;
  const names = found[1]!.split(', ');
  const dashed = names.filter((n) => n.length === 1 || !/[A-Z]/.test(n) || !names.includes(n.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)));
  const typedAs = (word: string): boolean => argv.some((a) => a === word || a.startsWith(`${word}=`));
  const typed = dashed.map((n) => {
    if (n.length === 1) return `-${n}`;
    if (typedAs(`--${n}`)) return `--${n}`;
    // yargs reads `-x.ndjson` as an option named `x.ndjson`, whose unknown option is `-x`, as getopt(3) says; and
    // `--no-x` as x set to false, and names it x.
    if (typedAs(`-${n}`)) return `-${n[0]!}`;
    return typedAs(`--no-${n}`) ? `--no-${n}` : `--${n}`;
  });
  let out = `unknown option${typed.length === 1 ? '' : 's'}: ${typed.join(', ')}`;
  const file = argv.find((a) => /^-[^-]/.test(a) && pathExists(a));
  if (file !== undefined) out += ` (${readFileHint(file)})`;
  return out;
}

/** How to read `file`, a word of the command line that starts with `-`. */
function readFileHint(file: string): string {
  return `to read the file ${visibleOneLine(file)}, name it ./${visibleOneLine(file)}`;
}

/** Options that take a value and may also be negated: `--no-color` is `--color=never`. */
const NEGATABLE_VALUES: ReadonlySet<string> = new Set(['color']);

/**
 * A usage error for `--flag=value` where the flag takes no value (or
 * `--no-flag=value`): yargs would read the value as the flag's truth, so
 * that `--no-pending=true` turned the check off. Also for `--no-x` where x
 * takes a value (yargs would set it to false: `--no-tool` kept no call and
 * passed every check), or is `--help`, `--version` or itself a `--no-`
 * flag. Also for a one-letter flag given a value (`-j=yes`, `-j1`), which
 * yargs reads the same way, and for three dashes (`---no-writes`), which
 * yargs lets by as an option of another name. Also for what yargs does not
 * read as an option where getopt(3) would (`-1`), or reads as one of its own
 * (`--$0`, `--_`, `-_`). Also for `--no-x` of a flag x whose `--no-` form
 * the command does not document (`negations`): yargs read `--no-strict` as
 * the check off, where getopt_long(3) knows no such option. Undefined when
 * there is none.
 */
function flagGivenValue(options: Record<string, Options>, argv: readonly string[], negations: readonly string[]): string | undefined {
  const flags = new Set(['help', 'version', 'h', 'V']);
  // `--no-x` of any option (`--no-color`) is a flag too.
  const negated = new Set<string>();
  const valued = new Set<string>();
  for (const [name, option] of Object.entries(options)) {
    const names = optionNames(name, option);
    for (const n of names) negated.add(n);
    if (option.type === 'boolean') for (const n of names) flags.add(n);
    else for (const n of names) valued.add(n);
  }
  // The word before was an option that takes a value, given without it: this word is that value.
  let value = false;
  for (const arg of argv) {
    if (arg === '--') break;
    const isValue = value;
    value = givenBare(arg, valued);
    if (isValue) continue;
    // yargs reads `---no-writes` as an option named `-no-writes`, which it lets by: the check would be off.
    if (arg.startsWith('---')) return `unknown option: ${visibleOneLine(arg)}`;
    // yargs reads `-1` as a file named so, where getopt(3) has an option: a file so named is `./-1`.
    if (/^-[0-9]/.test(arg)) {
      return `unknown option: ${visibleOneLine(arg)}${pathExists(arg) ? ` (${readFileHint(arg)})` : ''}`;
    }
    // Keys yargs keeps for itself (`--$0` took the next word as its value, a file the run then did not read; so did `-_`),
    // and one it spells otherwise in its message.
    const key = /^--(?:no-)?([^=]*)/.exec(arg)?.[1];
    if (key === '$0' || key === '_' || key === '__proto__') return `unknown option: ${visibleOneLine(arg.replace(/=.*/s, ''))}`;
    if (arg.startsWith('-_')) return 'unknown option: -_';
    // In `-j=yes`, `-j1` or `-qj-`, the letter before the first other character takes the rest as its value. (A word with
    // a letter before it that is no flag, `-dash.ndjson`, has unknown options: yargs names them.)
    const group = /^-([A-Za-z]+)[^A-Za-z]/.exec(arg)?.[1];
    if (group !== undefined && [...group].every((letter) => flags.has(letter))) {
      const file = pathExists(arg) ? `; ${readFileHint(arg)}` : '';
      return `-${group[group.length - 1]} takes no value (given ${visibleOneLine(arg)}${file})`;
    }
    // yargs takes an option's camelCase spelling too: `--no-denyRead` is `--no-deny-read`.
    const written = /^--no-([^=]+)$/.exec(arg)?.[1];
    const not = written?.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    if (not !== undefined && valued.has(not) && !NEGATABLE_VALUES.has(not)) return `--${not} takes a value: ${visibleOneLine(arg)} is no option`;
    if (not !== undefined && (not === 'help' || not === 'version' || not.startsWith('no-'))) return `unknown option: ${visibleOneLine(arg)}`;
    // A flag's `--no-` form, unless documented or an option of its own (ndjson-tools' `--no-pending`).
    if (not !== undefined && (flags.has(written!) || flags.has(not)) && !negations.includes(not) && !(`no-${not}` in options)) {
      return `unknown option: ${visibleOneLine(arg)}`;
    }
    const name = /^--([^=]+)=/.exec(arg)?.[1];
    if (name !== undefined && (flags.has(name) || (name.startsWith('no-') && (flags.has(name.slice(3)) || negated.has(name.slice(3)))))) {
      return `--${name} takes no value (given ${visibleOneLine(arg)})`;
    }
  }
  return undefined;
}

/**
 * The values of an option that may be given several times (`-f a -f b`).
 * Such options are plain strings to yargs, not arrays: an array option would
 * also take the file names that follow it.
 */
export function list(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value]).map(String);
}

/**
 * Writes a warning line `name: message` on stderr. Where stdout and stderr
 * are one place, while a tool runs, the line goes into the tool's output
 * instead, after the output of the lines before the one it is about: written
 * to stderr, it would come before the output made but not yet written (of a
 * whole chunk of input, or waiting for a slow reader). A line of output
 * left unfinished (live text) is ended first, so that the warning stands on
 * a line of its own.
 */
export function warn(io: Io, name: string, message: string): void {
  toStderr(io, `${name}: ${message}\n`, false);
}

/**
 * Writes `data` on stderr, as {@link warn} writes a warning: where stdout and
 * stderr are one place, while a tool runs, into the tool's output after what
 * was made before, a line of live text it would land in ended first. So is a
 * line the command after `--` left open on stderr, but for the command's own
 * bytes (`fromCommand`), which go on with it.
 */
function toStderr(io: Io, data: Buffer | string, fromCommand: boolean): void {
  const stream = running.get(io);
  // The output made so far is pushed first: how it ends is then known.
  if (stream?.interject('') === true) {
    const open = openLine.get(io);
    const ended = open === 'output' || (open === 'command' && !fromCommand);
    stream.interject(ended ? Buffer.concat([NEWLINE, Buffer.from(data)]) : data, open === 'output');
    return;
  }
  const open = openLine.get(io);
  if (open === 'output') io.stdout.write('\n');
  else if (open === 'command' && !fromCommand) toStderrSoon(io, '\n');
  toStderrSoon(io, data);
  const last = typeof data === 'string' ? data.charCodeAt(data.length - 1) : data[data.length - 1];
  if (fromCommand && data.length > 0 && last !== 0x0a) openLine.set(io, 'command');
  else if (data.length > 0) openLine.delete(io);
}

const NEWLINE = Buffer.from('\n');

/** True when `io`'s stdout and stderr are one place (see Io.sharedOutput; two terminals are taken for one). */
function sharesOutput(io: Io): boolean {
  let shared = sharing.get(io);
  if (shared === undefined) {
    shared = io.sharedOutput ?? (io.stdout.isTTY === true && io.stderr.isTTY === true);
    sharing.set(io, shared);
  }
  return shared;
}

/** What {@link sharesOutput} found for each run's I/O (the process's looks at its descriptors). */
const sharing = new WeakMap<Io, boolean>();

/**
 * What {@link toStderrSoon} holds for each run's stderr: its pieces in
 * order, text run together. Written at the end of the synchronous work that
 * made them (a chunk of input read): a warning for each of 100,000 lines
 * of noise was a write of its own.
 */
const heldStderr = new WeakMap<Io, Array<string | Buffer>>();

/**
 * Writes `data` on `io`'s stderr once the work at hand is done, after what
 * came before it; at once where stdout and stderr are one place, whose
 * writes must keep their order.
 */
function toStderrSoon(io: Io, data: string | Buffer): void {
  if (sharesOutput(io)) {
    io.stderr.write(data);
    return;
  }
  let held = heldStderr.get(io);
  if (held === undefined) {
    held = [];
    heldStderr.set(io, held);
    queueMicrotask(() => flushStderr(io));
  }
  const n = held.length;
  if (typeof data === 'string' && n > 0 && typeof held[n - 1] === 'string') held[n - 1] += data;
  else held.push(data);
  // A long piece of input read at once is not held whole: its warnings are written 64 KiB at a time.
  if (held[held.length - 1]!.length >= HELD_STDERR_MAX) flushStderr(io);
}

/** How much text {@link toStderrSoon} holds before it writes. */
const HELD_STDERR_MAX = 64 * 1024;

/** Writes what {@link toStderrSoon} holds for `io`, now: before a write that must come after it. */
function flushStderr(io: Io): void {
  const held = heldStderr.get(io);
  if (held === undefined) return;
  heldStderr.delete(io);
  for (const piece of held) io.stderr.write(piece);
}

/**
 * The line the output ends in, when it is not ended: the tool's (live text,
 * where stdout and stderr are one place, see Io.sharedOutput), or one of the
 * command's stderr. A warning would land inside it: {@link warn} ends it
 * first. Set by {@link runTool} as it writes, and by {@link toStderr}.
 */
const openLine = new WeakMap<Io, 'output' | 'command'>();

/** The tool stream {@link runTool} is running, for a run whose stdout and stderr are one place: {@link warn} writes into it. */
const running = new WeakMap<Io, ToolTransform>();

/** Outcome of running a tool over its inputs. */
export interface RunResult {
  /** The exit status the I/O alone calls for: 0, or 2 for an input, strict or write error; 130 or 143 when a signal stopped the run. */
  code: number;
  /** The reader went away (EPIPE), or a signal stopped the run: the tool must not report anything more (but what was asked for, as `--stats`, after a signal). */
  closed: boolean;
  /** A signal stopped the run (`code` is 130 or 143). */
  signalled?: boolean;
  /**
   * `--strict` stopped the run at a bad line, or a line too long to hold did
   * (see LineTooLongError; `code` is 2): what a tool writes only at the end is
   * not written.
   */
  strictStop?: boolean;
  /** How many lines were not events. */
  problems: number;
  /** The command run after `--` was ended by the SIGTERM sent when its output was no longer read: not its failure. */
  commandStopped?: boolean;
  /**
   * How the command run after `--` ended, when the run stopped reading its
   * output before its end (the output may still be held open by a process
   * it started, which is not waited for).
   */
  commandExit?: CommandExit;
}

/** How the command run after `--` ended. */
export interface CommandExit {
  /** Its exit status, or null when a signal ended it or it could not start. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it could not start. */
  error?: NodeJS.ErrnoException;
}

/** A command started for its output: its stdout is the stream to read. */
export interface StartedCommand {
  name: string;
  stdout: NodeJS.ReadableStream;
  exited: Promise<CommandExit>;
  /**
   * Sends the command a signal (the one that stopped us, SIGTERM as the output can no longer be written, SIGKILL once
   * its time is up); from then on, once it has ended, its stderr is waited for briefly (see closedOrQuiet).
   */
  kill(signal: NodeJS.Signals): void;
  /** True while the command's process has not ended (its output may still be open in a process it started). */
  running(): boolean;
  /** Resolves when the command's process has ended (and is reaped), whatever holds its output open: how it ended. */
  ended: Promise<CommandExit>;
}

/**
 * Starts `argv` (the words after `--`) with stdin inherited, its stderr passed
 * through to ours, placed as a warning is (see {@link toStderr}), and its
 * stdout piped to us.
 *
 * Its stdout is read to its end whatever reads the stream handed over: a
 * reader that stops (a signal, `--strict`) lets go of that stream, and the
 * rest is drained, so that a command writing as it shuts down is not killed
 * by a pipe closed under it. It counts as exited once it has ended and its
 * stdout has, and its stderr has closed or passed nothing on for {@link
 * OUTPUT_CLOSE_MS}: a process it started may hold that open (a server left
 * running), which then no longer holds the run open; nor does one still
 * writing on it {@link STDERR_DRAIN_MS} on (a server that logs), of which a
 * line says so (`name`: the tool's).
 */
export function startCommand(argv: string[], io: Io, name: string): StartedCommand {
  const fifos = namedPipes();
  let child: ChildProcess;
  try {
    child = spawn(argv[0]!, argv.slice(1), { stdio: ['inherit', fifos?.write[0] ?? 'pipe', fifos?.write[1] ?? 'pipe'], env: io.env });
  } catch (error) {
    // Node throws at once for some reasons a command cannot start (`./file/x`: ENOTDIR; ELOOP, ENAMETOOLONG), where it
    // emits the others (ENOENT, EACCES).
    if (fifos !== null) for (const fd of [...fifos.read, ...fifos.write]) closeEnd(fd);
    return notStarted(argv[0]!, error as NodeJS.ErrnoException);
  }
  // The command (and what it starts) holds the ends it writes to: the pipes end when it is done with them.
  if (fifos !== null) for (const fd of fifos.write) closeEnd(fd);
  const out = fifos !== null ? readEnd(fifos.read[0]) : child.stdout!;
  const stderr = fifos !== null ? readEnd(fifos.read[1]) : child.stderr!;
  stderr.on('data', (chunk: Buffer) => toStderr(io, chunk, true));
  const stdout = new PassThrough();
  out.on('error', (error) => stdout.destroy(error));
  out.pipe(stdout);
  stdout.once('close', () => {
    out.unpipe(stdout);
    out.resume();
  });
  // A second signal ends the tool at once: the command, if still at work, is not left so unseen.
  const dropLast = io.signals?.atLast?.((signal) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    // Where output and stderr are one place, a line left open there (live text, the command's) is ended first.
    const ending = openLine.has(io) ? '\n' : '';
    flushStderr(io);
    io.stderr.write(`${ending}${name}: ${visibleOneLine(argv[0]!)} killed (SIGKILL): a second ${signal} came before it ended\n`);
  });
  // SIGHUP (a terminal closed, a supervisor's hang-up), sent to the tool alone, would end it and leave the command at
  // work, unseen, its output read by no one: the command is given it too, and the tool then ends by it, as it would have.
  const dropHangup = io.signals?.atHangup?.(() => void child.kill('SIGHUP'));
  const ended = (): void => {
    dropLast?.();
    dropHangup?.();
  };
  // Ended, or never started (Node emits 'error' and no 'exit' for ENOENT or EACCES).
  child.once('exit', ended);
  child.once('error', ended);
  const stdoutClosed = new Promise<void>((resolve) => out.once('close', () => resolve()));
  // Told to stop (a signal passed on, or SIGTERM as the output can no longer be written): the wait for its stderr, once
  // it has ended, is cut short, as the tool is ending (see closedOrQuiet).
  let tell: () => void = () => undefined;
  const told = new Promise<void>((resolve) => (tell = resolve));
  const exited = new Promise<CommandExit>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => {
      void stdoutClosed
        .then(() => closedOrQuiet(stderr, OUTPUT_CLOSE_MS, STDERR_DRAIN_MS, told))
        .then((held) => {
          (stderr as { unref?: () => void }).unref?.();
          if (held) warn(io, name, `a process ${visibleOneLine(argv[0]!)} started still writes on its stderr: no longer waited for`);
          resolve({ code, signal });
        });
    });
  });
  return {
    name: argv[0]!,
    stdout,
    exited,
    kill: (signal) => {
      tell();
      child.kill(signal);
    },
    running: () => child.exitCode === null && child.signalCode === null,
    ended: new Promise((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, signal: null, error }));
    }),
  };
}

/** A command that could not be started: no output, and `error` as its exit. */
function notStarted(name: string, error: NodeJS.ErrnoException): StartedCommand {
  const exit: CommandExit = { code: null, signal: null, error };
  const stdout = new PassThrough();
  stdout.end();
  return { name, stdout, exited: Promise.resolve(exit), kill: () => undefined, running: () => false, ended: Promise.resolve(exit) };
}

/**
 * Resolves when `stream` has closed, or has passed nothing on for `ms`: a
 * stream still written to (a wrapper's filter of the command's stderr,
 * behind it) is waited for, one only held open is not; nor one still
 * written to `maxMs` on, for which it resolves true; once `stop` resolves
 * (the command told to stop), `ms` on at most.
 */
function closedOrQuiet(stream: NodeJS.ReadableStream, ms: number, maxMs: number, stop?: Promise<void>): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let cap: NodeJS.Timeout | undefined;
    const end = (held: boolean): void => {
      clearTimeout(timer);
      clearTimeout(cap);
      stream.off('data', arm);
      stream.off('close', done);
      resolve(held);
    };
    const done = (): void => end(false);
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(done, ms).unref();
    };
    if ((stream as Partial<Readable>).closed === true) {
      resolve(false);
      return;
    }
    stream.on('data', arm);
    stream.once('close', done);
    arm();
    cap = setTimeout(() => end(true), maxMs).unref();
    // What is in the pipe already (the command's last words) is still read.
    void stop?.then(() => {
      clearTimeout(cap);
      cap = setTimeout(() => end(true), ms).unref();
    });
  });
}

/**
 * Why `command` (shown as `what`) was not run, as a shell says it: a name
 * without a slash is looked for on PATH (`command not found`); a path is
 * tried as it is, and the system's EACCES for a directory is named as one.
 */
function notRun(what: string, command: string, error: NodeJS.ErrnoException): string {
  if (!command.includes('/')) return error.code === 'ENOENT' ? `${what}: command not found` : `cannot run ${what}: ${describeError(error)}`;
  return `cannot run ${what}: ${error.code === 'EACCES' && isDirectory(command) ? 'Is a directory' : describeError(error)}`;
}

/**
 * When the command could not be started at all: says why and returns 2
 * (there was no input to read); otherwise returns null.
 */
export async function commandStartFailure(name: string, command: StartedCommand, io: Io): Promise<number | null> {
  const { error } = await command.exited;
  if (!error) return null;
  const what = visibleOneLine(command.name);
  const executable = error.code === 'ENOENT' && isExecutableFile(command.name);
  if (executable && command.name.includes('/')) {
    // It is there, yet not found: what runs it is not (the program its `#!` line names, or a binary's loader).
    warn(io, name, `cannot run ${what}: the file is there, but not the program that runs it (the interpreter its #! line names, or its loader)`);
    return EXIT.INPUT;
  }
  // `tool -- run.ndjson`, as if `--` only ended the options: a file, which cannot be run (or, named without a slash, is
  // looked for on PATH). One that may be run (a script here, not on PATH; or a log with the execute bit) may be either.
  const read = `to read the file, leave out the --${command.name.startsWith('-') ? `, and name it ./${what}` : ''}`;
  const hint = !isFile(command.name)
    ? ''
    : executable
      ? ` (after --, a command is run, looked for on PATH: to run the file here, name it ./${what}; ${read})`
      : ` (after --, a command is run: ${read})`;
  warn(io, name, `${notRun(what, command.name, error)}${hint}`);
  return EXIT.INPUT;
}

/**
 * The status of a run that read a command's output: the stream's own verdict
 * when it reports a failure or an I/O error, else the command's failure (5).
 */
export async function commandStatus(name: string, command: StartedCommand, streamCode: number, io: Io, ended?: CommandExit): Promise<number> {
  const exit = ended ?? (await command.exited);
  const what = visibleOneLine(command.name);
  let failure: string | null = null;
  if (exit.signal) failure = `${what} was killed by ${exit.signal}`;
  else if (exit.code !== 0) failure = `${what} exited with status ${exit.code}`;
  if (failure === null) return streamCode;
  warn(io, name, failure);
  return streamCode !== EXIT.OK ? streamCode : EXIT.COMMAND;
}

/**
 * Waits for a command run after `--` to end, once its output has: a
 * command may close its stdout and go on. SIGINT or SIGTERM meanwhile goes on
 * to it, as while its output was read, and the command is given
 * {@link COMMAND_WAIT_MS} to end; the signal is returned then (null when none
 * came).
 */
export async function awaitCommand(name: string, command: StartedCommand, io: Io): Promise<StopSignal | null> {
  let onSignal: ((signal: StopSignal) => void) | undefined;
  const signalled = new Promise<StopSignal>((resolve) => {
    onSignal = (signal) => {
      io.signals?.off('SIGINT', onSignal!);
      io.signals?.off('SIGTERM', onSignal!);
      command.kill(signal);
      resolve(signal);
    };
    io.signals?.on('SIGINT', onSignal);
    io.signals?.on('SIGTERM', onSignal);
  });
  const first = await Promise.race([command.exited.then(() => null), signalled]);
  io.signals?.off('SIGINT', onSignal!);
  io.signals?.off('SIGTERM', onSignal!);
  if (first !== null) await commandEnds(name, command, io);
  return first;
}

/**
 * Sends SIGTERM to a command whose output can no longer be written, and
 * waits for it as after a signal (see {@link commandEnds}): its last words
 * reach stderr, and the run does not end with the command still at work.
 */
function stopCommand(name: string, command: StartedCommand, io: Io): Promise<void> {
  command.kill('SIGTERM');
  return commandEnds(name, command, io);
}

/** {@link stopCommand} for a command still running; true when it was (a command that had ended its own way is left be). */
async function stopIfRunning(name: string, command: StartedCommand, io: Io): Promise<boolean> {
  if (!command.running()) return false;
  await stopCommand(name, command, io);
  return true;
}

/**
 * Resolves when a command sent a signal has ended, or {@link COMMAND_WAIT_MS}
 * later; a command still running then is killed (SIGKILL), and says so: a
 * run does not end with the agent left at work unseen.
 */
async function commandEnds(name: string, command: StartedCommand, io: Io): Promise<void> {
  // Its process ended, its pipes have a little longer to close (its stderr read till then: see closedOrQuiet), not
  // the rest of the 5 seconds: a process it started that holds them is not waited for.
  const held = command.ended.then(() => after(2 * OUTPUT_CLOSE_MS));
  const late = await Promise.race([command.exited.then(() => false), held.then(() => true), after(COMMAND_WAIT_MS).then(() => true)]);
  if (!late) return;
  if (!command.running()) {
    // It ended, but a process it started (an agent under `sh -c`) holds its output open: not ours to find and stop.
    warn(io, name, `${visibleOneLine(command.name)} has ended, but a process it started still holds its output open: left running`);
    return;
  }
  command.kill('SIGKILL');
  // Reaped before the run ends, not left a zombie to whatever adopts it.
  await Promise.race([command.ended, after(1000)]);
  warn(io, name, `${visibleOneLine(command.name)} was still running ${COMMAND_WAIT_MS / 1000} seconds after it was told to stop: killed (SIGKILL)`);
  // Its output still open once it is gone: a process it started (an agent under `sh -c`) holds it, and SIGKILL did not reach it.
  await outputLeftOpen(name, command, io);
}

/** Says so when the output of a command that has ended is still held open, {@link OUTPUT_CLOSE_MS} on, by a process it started. */
async function outputLeftOpen(name: string, command: StartedCommand, io: Io): Promise<void> {
  if (await Promise.race([command.exited.then(() => false), after(OUTPUT_CLOSE_MS).then(() => true)])) {
    warn(io, name, `a process ${visibleOneLine(command.name)} started still holds its output open: left running`);
  }
}

/** How long the pipes of a command killed are given to close, once it has ended, before a process it started is taken to hold them. */
const OUTPUT_CLOSE_MS = 200;

/** How long, at most, the stderr of a command that has ended (and its stdout) is waited for while a process it started goes on writing on it. */
const STDERR_DRAIN_MS = 5000;

/** Resolves `ms` later, holding no run open meanwhile. */
function after(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** The status of a run a signal stopped (see {@link SIGNAL_STATUS}). */
export function signalStatus(signal: StopSignal): number {
  return SIGNAL_STATUS[signal];
}

/** How long, after SIGINT or SIGTERM, the output may take to be written before the run ends anyway. */
const FLUSH_WAIT_MS = 1000;

/**
 * How long, after SIGINT or SIGTERM, a command run after `--` may take to end
 * (its stderr still passed through: a session saved, where to resume) before
 * the run ends anyway; a second signal ends it at once.
 */
const COMMAND_WAIT_MS = 5000;

/** The status of a run a signal stopped: 128 + the signal's number, as a shell reports it. */
const SIGNAL_STATUS: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

let sharedPool: ReadPool | undefined;

/**
 * The pool every input of the process is read with: the byte scan's read
 * buffers are its own (a chunk read into one is scanned without a copy), and
 * one pool hands each out to one read at a time, however many commands run.
 */
function readPool(): ReadPool {
  return (sharedPool ??= new ReadPool({ own: scanReadBuffers() }));
}

/** Options of {@link runTool}. */
export interface RunOptions {
  /** Called with each line that is not an event, after its warning. */
  onProblem?: (p: InputProblem) => void;
  /** The command started after `--`, whose output is read. */
  command?: StartedCommand;
  /**
   * The tool judges its whole input (ndjson-result, ndjson-tools' checks,
   * ndjson-dedupe --verify): a reader that goes away (`| head`) does not end the run, which
   * reads on to the end of its input, its output dropped.
   */
  readToEnd?: boolean;
}

/**
 * Reads the inputs through a tool's core into stdout: files in order (stdin
 * for none or `-`), or the output of a command started with
 * {@link startCommand}; warnings for lines that are not events, `--strict`,
 * and every I/O error mapped to the exit-status table.
 */
export async function runTool(
  name: string,
  core: ToolCore,
  args: CommonArgs,
  io: Io,
  { onProblem, command, readToEnd = false }: RunOptions = {},
): Promise<RunResult> {
  io.onRead?.();
  guardOutput(io.stdout);
  let inputError = false;
  let problems = 0;
  // SIGINT or SIGTERM: the input ends where it is; the tool writes what it owes at the end of its
  // input (pending calls, a summary, the final message) and the run ends with 130 or 143. A second
  // signal finds no handler and ends the process at once.
  const stop = new AbortController();
  let stoppedBy = null as StopSignal | null;
  const onSignal = (signal: StopSignal): void => {
    io.signals?.off('SIGINT', onSignal);
    io.signals?.off('SIGTERM', onSignal);
    stoppedBy = signal;
    command?.kill(signal);
    stop.abort();
  };
  io.signals?.on('SIGINT', onSignal);
  io.signals?.on('SIGTERM', onSignal);
  const sources = openSources(
    command ? ['-'] : args.files,
    command ? command.stdout : () => io.stdin,
    command ? visibleOneLine(command.name) : undefined,
    stop.signal,
    { pool: readPool(), stdinFd: command ? undefined : io.stdinFd, output: io.stdoutFd === undefined ? undefined : outputFile(io.stdoutFd) },
  );
  // Where stdout and stderr are one place, a warning written while the output is mid-line (live text) would land inside that line: the line is ended first.
  const shared = sharesOutput(io);
  const stream = toolStream(core, {
    strict: args.strict,
    onProblem: (p) => {
      problems++;
      if (!args.quiet || args.strict) warn(io, name, formatProblem(p));
      onProblem?.(p);
    },
    onSourceError: (source, error) => {
      inputError = true;
      warn(io, name, visibleOneLine(`${source}: ${describeError(error)}`));
    },
    onOutput: shared
      ? (data, interjected) => {
          if (data[data.length - 1] === 0x0a) openLine.delete(io);
          else openLine.set(io, interjected ? 'command' : 'output');
        }
      : undefined,
  });
  if (shared) running.set(io, stream);
  // What is owed is written if the reader takes it soon; a reader that has stopped reading does not hold the end back.
  const flushed = new Promise<'stopped'>((resolve) => stop.signal.addEventListener('abort', () => setTimeout(() => resolve('stopped'), FLUSH_WAIT_MS).unref(), { once: true }));
  const outcome = await Promise.race([runOutput(sources, stream, readToEnd ? untilClosed(io.stdout) : io.stdout), flushed]);
  running.delete(io);
  io.signals?.off('SIGINT', onSignal);
  io.signals?.off('SIGTERM', onSignal);
  if (outcome === 'stopped' || stoppedBy !== null) {
    // The command got the signal too: its last words reach stderr before the run ends, and its stderr is not closed under it.
    if (command) await commandEnds(name, command, io);
    return { code: SIGNAL_STATUS[stoppedBy ?? 'SIGINT'], closed: true, signalled: true, problems };
  }
  switch (outcome.kind) {
    case 'done':
      return { code: inputError ? EXIT.INPUT : EXIT.OK, closed: false, problems };
    case 'closed':
      // Nothing it writes can go anywhere now: the command run after `--` is stopped, not left running unseen.
      if (command) await stopCommand(name, command, io);
      // A bad line `--strict` stopped at (reported) before the reader went away is still the run's status.
      if (args.strict && problems > 0) return { code: EXIT.INPUT, closed: true, strictStop: true, problems };
      return { code: EXIT.OK, closed: true, problems };
    case 'write-error':
      warn(io, name, `write error: ${outcome.message}`);
      if (command) await stopCommand(name, command, io);
      return { code: EXIT.INPUT, closed: true, problems };
    case 'failed': {
      const strictStop = outcome.error instanceof StrictError || outcome.error instanceof LineTooLongError;
      // A line too long to hold ends the run there, as --strict does at a bad line.
      if (outcome.error instanceof LineTooLongError) warn(io, name, visibleOneLine(outcome.error.message));
      else if (!strictStop) warn(io, name, outcome.error.message);
      // Its output is no longer read: the command run after `--` is stopped, as when the output cannot be written. One
      // that had ended its own way, or ended so once told to stop, is judged as ever: only the end the signal made is not.
      // A process it started that holds its output open is not waited for, as after a signal.
      let commandExit: CommandExit | undefined;
      let stopped = false;
      if (command !== undefined) {
        const wasRunning = await stopIfRunning(name, command, io);
        commandExit = await command.ended;
        stopped = wasRunning && commandExit.signal === 'SIGTERM';
        if (!wasRunning) await outputLeftOpen(name, command, io);
      }
      return {
        code: EXIT.INPUT,
        closed: false,
        problems,
        ...(strictStop ? { strictStop } : {}),
        ...(stopped ? { commandStopped: true } : {}),
        ...(commandExit !== undefined ? { commandExit } : {}),
      };
    }
  }
}
