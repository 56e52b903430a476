/** The toolkit's exit statuses: one table, in every man page and `--help`. */
export const EXIT = {
  /** Success. */
  OK: 0,
  /** Bad usage: an unknown option, a bad value. */
  USAGE: 1,
  /** An input could not be read, `--strict` met a line that is not an event, the output could not be written, or the command after `--` could not be started (or ndjson-result no longer held the result it had to print). */
  INPUT: 2,
  /** A failure was reported: the agent's result says the run failed, a check failed. */
  FAILED: 3,
  /** No result: the stream ended without a terminal `result` event. */
  NO_RESULT: 4,
  /** The command run after `--` failed (exit status other than 0, or a signal) while its stream reported no failure. */
  COMMAND: 5,
} as const;

/** The exit-status table as text rows, for `--help` and the man pages. */
export const EXIT_TABLE: ReadonlyArray<readonly [number, string]> = [
  [EXIT.OK, 'success'],
  [EXIT.USAGE, 'bad usage (unknown option, bad value)'],
  [EXIT.INPUT, 'input or output failed, or --strict met a bad line'],
  [EXIT.FAILED, 'failure reported: a failed result, a failed check'],
  [EXIT.NO_RESULT, 'no result: the stream ended before a terminal result event'],
  [EXIT.COMMAND, 'the command after -- failed, though its stream reported no failure'],
  [130, 'interrupted (SIGINT); 143 terminated (SIGTERM)'],
];
