/** ndjson-tools as a Transform stream: agent-stream bytes in, audit records (or the summary, or paths) out. */
import { toolStream } from '../io/tool-stream.js';
import type { ToolStreamOptions, ToolTransform } from '../io/tool-stream.js';
import { ToolsCore } from './core.js';
import type { ToolsOptions } from './core.js';

/**
 * A tools stream, with its core: once the stream has ended, `core.passed`
 * says whether the checks passed (as `ndjson-tools` ends with 0 or 3),
 * `core.violations` counts the checks broken, `core.calls` the calls kept.
 */
export type ToolsStream = ToolTransform & { core: ToolsCore };

/**
 * Creates a Transform that writes one audit record per tool call of the
 * stream written to it, or what `options` ask instead; broken checks go to
 * `options.onViolation`.
 */
export function tools(options: ToolsOptions & ToolStreamOptions = {}): ToolsStream {
  const core = new ToolsCore(options);
  return Object.assign(toolStream(core, options), { core });
}
