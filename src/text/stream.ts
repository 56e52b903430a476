/** ndjson-text as a Transform stream: agent-stream bytes in, the text a person reads out. */
import { toolStream } from '../io/tool-stream.js';
import type { ToolStreamOptions, ToolTransform } from '../io/tool-stream.js';
import { TextCore } from './core.js';
import type { TextOptions } from './core.js';

/** A text stream, with its core (read `core.sessions` once the stream has ended). */
export type TextStream = ToolTransform & { core: TextCore };

/**
 * Creates a Transform that writes the text of the stream written to it: each
 * session's final message by default, or with `options.all` the whole
 * transcript, each piece pushed as soon as the chunk that carried it is read.
 */
export function text(options: TextOptions & ToolStreamOptions = {}): TextStream {
  const core = new TextCore(options);
  return Object.assign(toolStream(core, options), { core });
}
