/** ndjson-dedupe as a Transform stream: agent-stream bytes in, the same events out, each piece of text once. */
import { toolStream } from '../io/tool-stream.js';
import type { ToolStreamOptions, ToolTransform } from '../io/tool-stream.js';
import { DedupeCore } from './core.js';
import type { DedupeOptions } from './core.js';

/** A dedupe stream, with its core (read `core.stats` once the stream has ended). */
export type DedupeStream = ToolTransform & { core: DedupeCore };

/**
 * Creates a Transform that writes the events of the stream written to it as
 * they were read, without the flushes that repeat streamed text (or, with
 * `options.keys`, without events whose keys were seen before).
 */
export function dedupe(options: DedupeOptions & ToolStreamOptions = {}): DedupeStream {
  const core = new DedupeCore(options);
  return Object.assign(toolStream(core, options), { core });
}
