/**
 * ndjson-agent as a library: the four tools as Transform streams, the input
 * layer, and the event model, for programs that consume the event streams of
 * coding-agent CLIs.
 *
 * Each tool stream takes the agent's output as bytes and writes what the
 * command of the same name writes; its `core` holds what it found (read it
 * once the stream has ended).
 *
 * @example
 *   import { pipeline } from 'node:stream/promises';
 *   import { dedupe } from 'ndjson-agent';
 *   await pipeline(process.stdin, dedupe(), process.stdout);
 *
 * @packageDocumentation
 */
export { dedupe } from './dedupe/stream.js';
export type { DedupeStream } from './dedupe/stream.js';
export type { DedupeCore, DedupeOptions, DedupeStats, KindCount, StatKind, Unverified, VerifyFailure } from './dedupe/core.js';
export { text } from './text/stream.js';
export type { TextStream } from './text/stream.js';
export type { SessionText, TextCore, TextOptions } from './text/core.js';
export { tools } from './tools/stream.js';
export type { ToolsStream } from './tools/stream.js';
export type { ToolsCore, ToolsOptions } from './tools/core.js';
export type { AuditedCall, CallStatus, PathField } from './tools/call.js';
export type { PolicyOptions, Violation } from './tools/policy.js';
export type { PathsChoice } from './tools/summary.js';
export { result } from './result/stream.js';
export type { ResultStream } from './result/stream.js';
export type { ResultCore, ResultOptions, SessionVerdict } from './result/core.js';
export type { SessionEnd } from './session.js';
export { readEvents } from './io/read-events.js';
export type { EventStream, ReadEventsOptions } from './io/read-events.js';
export { EventReader, LineTooLongError, MAX_LINE, formatProblem, recordType, recordSession } from './io/input.js';
export type { EventRecord, InputProblem, ProblemReason, ReaderOptions, ReaderSink } from './io/input.js';
export type { LineShape } from './io/shapes.js';
export { StrictError } from './io/tool-stream.js';
export type { Emit, ToolCore, ToolStreamOptions, ToolTransform } from './io/tool-stream.js';
export { TextTracker } from './assistant-text.js';
export type { FlushMismatch, Stretch, TextVerdict } from './assistant-text.js';
export { EXIT, EXIT_TABLE } from './exit.js';
export * from './events.js';
export { VERSION } from './version.js';
