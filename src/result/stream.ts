/** ndjson-result as a Transform stream: agent-stream bytes in, the result's text (or JSON, or fields) out. */
import { toolStream } from '../io/tool-stream.js';
import type { ToolStreamOptions, ToolTransform } from '../io/tool-stream.js';
import { ResultCore } from './core.js';
import type { ResultOptions } from './core.js';

/** A result stream, with its core (read `core.verdicts` once the stream has ended). */
export type ResultStream = ToolTransform & { core: ResultCore };

/**
 * Creates a Transform that writes the terminal result of the stream written to
 * it: its text by default, or as `options` ask. Read `stream.core.verdicts`
 * after it ends for the verdict of each session.
 */
export function result(options: ResultOptions & ToolStreamOptions = {}): ResultStream {
  const core = new ResultCore(options);
  return Object.assign(toolStream(core, options), { core });
}
