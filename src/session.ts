/**
 * How a session of the stream ended, as a tool that judges runs sees it:
 * the shape ndjson-result's verdicts and ndjson-text's sessions share, and
 * what the notes on stderr and the exit status are made from.
 */
import type { EventRecord } from './io/input.js';

/** How a session ended. */
export interface SessionEnd {
  /** The session id ('' for events without one). */
  session: string;
  /** The session's last result event, if it had one. */
  result?: EventRecord;
  /**
   * The result was read but not kept (ndjson-result from a pipe, for a
   * session many others ended after): `result` holds only where it was.
   */
  dropped?: boolean;
  /** The result reports failure. */
  failed: boolean;
  /** Where the verdict was read: the result, or the session's last event when there is none. */
  source: string;
  line: number;
}
