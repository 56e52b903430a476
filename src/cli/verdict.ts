/**
 * The verdict of the commands that judge a run (ndjson-result, ndjson-text):
 * how each session ended, one note on stderr for each that did not end well,
 * and the status, weighed with the exit of a command run after `--`.
 */
import type { SessionEnd } from '../session.js';
import type { ToolCore } from '../io/tool-stream.js';
import { resultFailureMessage } from '../events.js';
import { visibleOneLine } from '../safe-text.js';
import { EXIT } from '../exit.js';
import { awaitCommand, commandStartFailure, commandStatus, runTool, signalStatus, startCommand, warn } from './common.js';
import type { CommonArgs, Io, RunResult } from './common.js';

export type { SessionEnd };

/** `session X, result at file:line` (or `last event at …`), for messages. */
export function describeSessionEnd(s: SessionEnd): string {
  const id = s.session ? `session ${visibleOneLine(s.session)}, ` : '';
  return `${id}${s.result ? 'result' : 'last event'} at ${visibleOneLine(s.source)}:${s.line}`;
}

/** Options of {@link judgeSessions}. */
export interface JudgeOptions<S> {
  /** A note of the command's own after each session's. */
  more?: (s: S) => void;
  /** How many sessions there were, when the list holds only those that did not end well (ResultOptions.keepVerdicts). Default: the list's length. */
  given?: number;
  /**
   * The input was a regular file that was read from its start, as one that cannot be read from its end is: the advice
   * for a result not kept is --all alone (naming it again would read it the same way).
   */
  fileReadFromStart?: boolean;
}

/**
 * Says on stderr how each session that did not end well ended, and returns
 * the status they call for: 4 when one has no result, else 3 when one
 * failed, else 0; 2 when a session's result was read but not kept (see
 * ResultOptions.heldResults), whatever the others. An I/O error
 * (`run.code`) comes first; under --strict, after a line too long to hold,
 * or when nothing could be read, it is the whole story.
 */
export function judgeSessions<S extends SessionEnd>(
  name: string,
  sessions: readonly S[],
  args: CommonArgs,
  run: RunResult,
  io: Io,
  { more, given = sessions.length, fileReadFromStart = false }: JudgeOptions<S> = {},
): number {
  if (run.code !== EXIT.OK && ((args.strict && run.problems > 0) || run.strictStop === true || given === 0)) return run.code;
  if (given === 0) {
    warn(io, name, 'no result event: the input held no events of a run');
    return run.code || EXIT.NO_RESULT;
  }
  let code: number = EXIT.OK;
  for (const s of sessions) {
    if (s.dropped) {
      // Read, but let go before the end: the answer is not printed, and that is said, not hidden behind its status.
      const advice = fileReadFromStart ? 'use --all' : 'name the file alone, which is read from its end, or use --all';
      warn(io, name, `the result was not kept: too many sessions ended after it (${describeSessionEnd(s)}); ${advice}`);
      code = EXIT.INPUT;
    } else if (s.result === undefined) {
      warn(io, name, `no result event: the agent stopped before finishing (${describeSessionEnd(s)})`);
      if (code !== EXIT.INPUT) code = EXIT.NO_RESULT;
    } else if (s.failed) {
      warn(io, name, `the run failed: ${visibleOneLine(resultFailureMessage(s.result.event, s.result.raw))} (${describeSessionEnd(s)})`);
      if (code === EXIT.OK) code = EXIT.FAILED;
    }
    more?.(s);
  }
  return run.code || code;
}

/**
 * Runs a judging command's core over its inputs, or over the output of the
 * command given after `--` (`rest`), and returns the status: `judge`'s
 * verdict on the stream, weighed with the command's exit. `readToEnd`: the
 * status is the verdict whoever reads the output (ndjson-result): a reader
 * that goes away does not end the run, which reads on, its output dropped
 * (see RunOptions.readToEnd).
 */
export async function runJudged(
  name: string,
  core: ToolCore,
  args: CommonArgs,
  rest: string[],
  io: Io,
  judge: (run: RunResult) => number | Promise<number>,
  { readToEnd = false }: { readToEnd?: boolean } = {},
): Promise<number> {
  const command = rest.length > 0 ? startCommand(rest, io, name) : undefined;
  const run = await runTool(name, core, args, io, { command, readToEnd });
  if (run.closed) return run.code;
  // Its output has ended; the command may not have: a signal meanwhile ends the run, as while its output was read. (Unless
  // the run stopped reading it: then the command has ended, or was stopped.)
  if (command && run.commandExit === undefined) {
    const signal = await awaitCommand(name, command, io);
    if (signal !== null) return signalStatus(signal);
    const notStarted = await commandStartFailure(name, command, io);
    if (notStarted !== null) return notStarted;
  }
  const code = await judge(run);
  return command && run.commandStopped !== true ? commandStatus(name, command, code, io, run.commandExit) : code;
}
