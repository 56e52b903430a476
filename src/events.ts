/**
 * The one module that knows the shape of an agent's event stream.
 *
 * Everything the tools know about the dialect (which fields mark a delta, where
 * the text of a message lives, which key names the tool of a tool call) is
 * here, behind tolerant accessors: a missing or mistyped field reads as
 * absent, never as a crash. Unknown event types and unknown fields are carried
 * untouched by the tools; this module only reads.
 */

/** Any JSON object read from the stream. */
export type JsonObject = { [key: string]: unknown };

/** Fields shared by the events of the stream; every one may be missing. */
export interface BaseEvent extends JsonObject {
  type?: unknown;
  subtype?: unknown;
  session_id?: unknown;
  timestamp_ms?: unknown;
  model_call_id?: unknown;
}

/** `system`/`init`: the start of a session. */
export interface SystemEvent extends BaseEvent {
  type: 'system';
  cwd?: unknown;
  model?: unknown;
  permissionMode?: unknown;
  apiKeySource?: unknown;
}

/** A message: `user` (the prompt) or `assistant` (text of the agent). */
export interface MessageEvent extends BaseEvent {
  type: 'user' | 'assistant';
  message?: unknown;
}

/** `thinking` with subtype `delta` (carries `text`) or `completed`. */
export interface ThinkingEvent extends BaseEvent {
  type: 'thinking';
  text?: unknown;
}

/** `tool_call` with subtype `started` or `completed`. */
export interface ToolCallEvent extends BaseEvent {
  type: 'tool_call';
  call_id?: unknown;
  tool_call?: unknown;
}

/** The terminal `result` event, and the whole output of `--output-format json`. */
export interface ResultEvent extends BaseEvent {
  type: 'result';
  is_error?: unknown;
  result?: unknown;
  duration_ms?: unknown;
  usage?: unknown;
}

/** An event of the stream: one of the known kinds, or any other object. */
export type AgentEvent = SystemEvent | MessageEvent | ThinkingEvent | ToolCallEvent | ResultEvent | BaseEvent;

/** True for a non-null, non-array object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string field, or undefined when it is missing or not a string. */
export function str(obj: unknown, key: string): string | undefined {
  if (!isObject(obj)) return undefined;
  const v = obj[key];
  return typeof v === 'string' ? v : undefined;
}

/** A finite number field, or undefined when it is missing or not a number. */
export function num(obj: unknown, key: string): number | undefined {
  if (!isObject(obj)) return undefined;
  const v = obj[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** An object field, or undefined. */
export function obj(value: unknown, key: string): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const v = value[key];
  return isObject(v) ? v : undefined;
}

/** True when the field is present and not null (the doc's "present"). */
export function has(value: unknown, key: string): boolean {
  return isObject(value) && value[key] !== undefined && value[key] !== null;
}

/**
 * The value at a dot path (`usage.outputTokens`, `message.content.0.text`), or
 * undefined. Array elements are reached by their index.
 */
export function getPath(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const part of path.split('.')) {
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(part)) return undefined;
      cur = cur[Number(part)];
    } else if (isObject(cur)) {
      if (!Object.prototype.hasOwnProperty.call(cur, part)) return undefined;
      cur = cur[part];
    } else {
      return undefined;
    }
  }
  return cur;
}

/** The event's `type`, or '' when it has none. */
export function eventType(e: unknown): string {
  return str(e, 'type') ?? '';
}

/** The event's `subtype`, or ''. */
export function eventSubtype(e: unknown): string {
  return str(e, 'subtype') ?? '';
}

/** The session an event belongs to; events without one share the session ''. */
export function sessionId(e: unknown): string {
  return str(e, 'session_id') ?? '';
}

export function isSystemInit(e: unknown): e is SystemEvent {
  return eventType(e) === 'system' && eventSubtype(e) === 'init';
}
export function isUser(e: unknown): e is MessageEvent {
  return eventType(e) === 'user';
}
export function isAssistant(e: unknown): e is MessageEvent {
  return eventType(e) === 'assistant';
}
export function isThinking(e: unknown): e is ThinkingEvent {
  return eventType(e) === 'thinking';
}
export function isToolCall(e: unknown): e is ToolCallEvent {
  return eventType(e) === 'tool_call';
}
export function isResult(e: unknown): e is ResultEvent {
  return eventType(e) === 'result';
}

/**
 * The text of a message event: the `text` of every `{type: "text"}` block of
 * `message.content`, concatenated; a string `content` is taken whole. Blocks of
 * other kinds (`tool_use`, `tool_result`, images) are not text.
 */
export function messageText(e: unknown): string {
  const message = obj(e, 'message');
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const block of content) {
    if (isObject(block) && (block.type === 'text' || block.type === undefined) && typeof block.text === 'string') {
      text += block.text;
    }
  }
  return text;
}

/** What an `assistant` event is under the partial-output rules. */
export type AssistantKind =
  /** `timestamp_ms` without `model_call_id`: new text, to append. */
  | 'delta'
  /** Anything else: the text so far, again (before a tool call, or at the end of a turn), or the only copy of it when no deltas came before. */
  | 'flush';

/**
 * Classifies an `assistant` event by the documented table. Whether a flush is a
 * duplicate depends on what came before it: see {@link TextTracker}.
 */
export function assistantKind(e: unknown): AssistantKind {
  return has(e, 'timestamp_ms') && !has(e, 'model_call_id') ? 'delta' : 'flush';
}

/** Thinking text of a `thinking` delta, or ''. */
export function thinkingText(e: unknown): string {
  return str(e, 'text') ?? '';
}

/** The `result` text of a result event, or undefined when it has none. */
export function resultText(e: unknown): string | undefined {
  return str(e, 'result');
}

/**
 * True when a result event reports failure: `is_error: true`, or a `subtype`
 * other than `success`. A result without either field is taken as success.
 */
export function resultFailed(e: unknown): boolean {
  if (isObject(e) && e.is_error === true) return true;
  const subtype = str(e, 'subtype');
  return subtype !== undefined && subtype !== 'success';
}

/** A short description of a failed result, for messages: subtype and error text where there is one. */
export function resultFailureMessage(e: unknown): string {
  const subtype = str(e, 'subtype') ?? (isObject(e) && e.is_error === true ? 'error' : 'failed');
  let detail = str(e, 'error') ?? str(e, 'message') ?? resultText(e);
  if (detail && detail.length > 200) detail = `${detail.slice(0, 200)}…`;
  return detail ? `${subtype}: ${detail}` : subtype;
}
