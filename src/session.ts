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

/**
 * What a tool keeps of a session whose run ended well, in place of its whole
 * state, until the session goes on (a resumed run): the few numbers that
 * make that state again. ndjson-text and ndjson-result keep one for each
 * such session of a long log, so that memory holds little more than its id.
 */
export abstract class Settled<S> {
  /** The session's state, as it was when it settled. */
  abstract state(session: string): S;
}

/**
 * The state of a session seen before, or undefined: one that had settled is
 * made again, and set in its place of the map (a key set again keeps its
 * place: sessions are still met in the order they were first seen).
 */
export function sessionState<S>(sessions: Map<string, S | Settled<S>>, id: string): S | undefined {
  const s = sessions.get(id);
  if (!(s instanceof Settled)) return s;
  const state = s.state(id);
  sessions.set(id, state);
  return state;
}
