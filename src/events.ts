/**
 * The one module that knows the shape of an agent's event stream.
 *
 * Everything the tools know about the dialect (which fields mark a delta, where
 * the text of a message lives, which key names the tool of a tool call) is
 * here, behind tolerant accessors: a missing or mistyped field reads as
 * absent, never as a crash. Unknown event types and unknown fields are carried
 * untouched by the tools; this module only reads.
 */

import type { LineShape } from './io/shapes.js';
import { braceExpand } from 'minimatch';
import { firstValues } from './io/json-tokens.js';
import { bomLength, closingQuote, isJsonSpace, literalAt, parseNested } from './io/json-bytes.js';
import { exactJsonText, holdsNumber, maySpellNumbers, numberId, writtenJsonText, writtenNumbers, writtenPlaces } from './json-text.js';
import { clipped } from './safe-text.js';
import { lowerEach } from './lower-case.js';

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

/**
 * The most frequent lines of a stream, as skeletons the input layer reads
 * without `JSON.parse` (see io/shapes.ts): with partial output, the deltas of
 * text and thinking are most of its lines. Each `build` makes the object
 * `JSON.parse` gives for such a line; a line not exactly of a shape is parsed
 * in full.
 */
export const FREQUENT_SHAPES: readonly LineShape[] = [
  {
    type: 'assistant',
    skeleton: '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":%s}]},"session_id":%s,"timestamp_ms":%n}',
    // A delta (a time, no model call id: see assistantKind).
    delta: true,
    build: ([text, session_id, timestamp_ms]) => ({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'text', text }] },
      session_id,
      timestamp_ms,
    }),
  },
  {
    type: 'assistant',
    skeleton: '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":%s}]},"session_id":%s}',
    build: ([text, session_id]) => ({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] }, session_id }),
  },
  {
    type: 'assistant',
    skeleton:
      '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":%s}]},"session_id":%s,"model_call_id":%s,"timestamp_ms":%n}',
    build: ([text, session_id, model_call_id, timestamp_ms]) => ({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'text', text }] },
      session_id,
      model_call_id,
      timestamp_ms,
    }),
  },
  {
    type: 'thinking',
    skeleton: '{"type":"thinking","subtype":"delta","text":%s,"session_id":%s,"timestamp_ms":%n}',
    build: ([text, session_id, timestamp_ms]) => ({ type: 'thinking', subtype: 'delta', text, session_id, timestamp_ms }),
  },
  {
    type: 'thinking',
    skeleton: '{"type":"thinking","subtype":"completed","session_id":%s,"timestamp_ms":%n}',
    build: ([session_id, timestamp_ms]) => ({ type: 'thinking', subtype: 'completed', session_id, timestamp_ms }),
  },
];

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
 * The steps of a dot path: `usage.outputTokens`, `message.content.0.text`,
 * with a leading dot as jq writes one (`.usage.outputTokens`), and jq's
 * brackets: an index (`.content[0]`) or a key as a JSON string
 * (`.modelUsage["claude-x"]`, `.["a.b"]`), and its quoted keys
 * (`.modelUsage."claude-x"`). Undefined when `path` is no path: an empty
 * step (`a..b`, `a.`), a bracket that is neither (`[x]`, `["a"`), a name
 * that does not follow a dot (`.content[1]text`) or holds `"` or `]`, white
 * space or one of jq's operators `|?,()` (not read here: `.a|.b` is none),
 * or nothing at all (`` ``, `.`).
 *
 * A name is a key of an object, or, all digits, an index of an array too
 * (`content.0`); as jq has them, a bracketed index (a number) is an index
 * only, and a key in quotes (`{ key }`) a key only: `.c[0]` reads nothing of
 * `{"c":{"0":1}}`, nor `.c["0"]` of `{"c":[1]}`.
 */
export function pathSteps(path: string): PathStep[] | undefined {
  const steps: PathStep[] = [];
  let i = path.startsWith('.') ? 1 : 0;
  // A step must come next: at the start, and after a dot.
  let stepDue = true;
  while (i < path.length) {
    // A bracket (`[0]`, `["a.b"]`), or a key as a JSON string where a step is due (`."a.b"`).
    const quoted = path[i] === '[' ? /^\[(?:(-?\d+)|("(?:[^"\\]|\\.)*"))\]/.exec(path.slice(i)) : stepDue && path[i] === '"' ? /^()("(?:[^"\\]|\\.)*")/.exec(path.slice(i)) : undefined;
    if (quoted === null) return undefined;
    if (quoted !== undefined) {
      const index = quoted[1];
      if (index !== undefined && index !== '') steps.push(Number(index));
      else {
        try {
          steps.push({ key: JSON.parse(quoted[2]!) as string });
        } catch {
          return undefined;
        }
      }
      i += quoted[0].length;
      stepDue = false;
    } else if (path[i] === '.') {
      if (stepDue) return undefined;
      i++;
      stepDue = true;
    } else {
      // A name: up to the next dot or bracket, right after a dot or at the start (`.content[1]text` is none).
      if (!stepDue) return undefined;
      let end = i;
      while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
      const name = path.slice(i, end);
      // A quote or bracket out of place; white space, or what jq reads as an operator (`.a|.b`, `.a?`, `.a,.b`), which
      // this reads not: such a key is written in quotes (`.["a b"]`).
      if (/["\]|?,()\s]/.test(name)) return undefined;
      steps.push(name);
      i = end;
      stepDue = false;
    }
  }
  return stepDue || steps.length === 0 ? undefined : steps;
}

/** A step of a path (see {@link pathSteps}): a name, an index (in brackets), or a key (in quotes). */
export type PathStep = string | number | { key: string };

/**
 * The value at a path (see {@link pathSteps}), or undefined; undefined too
 * for a string that is no path. Array elements are reached by their index.
 */
export function getPath(value: unknown, path: string): unknown {
  const steps = pathSteps(path);
  return steps === undefined ? undefined : valueAt(value, steps);
}

/** The value at the steps of a path (see {@link pathSteps}), read once for many values; undefined when there is none. */
export function valueAt(value: unknown, steps: readonly PathStep[]): unknown {
  let cur: unknown = value;
  for (const step of steps) {
    if (Array.isArray(cur)) {
      // An index (from the end when negative, as in jq: `[-1]` is the last), or a name of digits: not a key in quotes.
      let index = typeof step === 'number' ? step : typeof step === 'string' && /^\d+$/.test(step) ? Number(step) : undefined;
      if (index === undefined) return undefined;
      if (index < 0) index += cur.length;
      if (index < 0) return undefined;
      cur = cur[index];
    } else if (isObject(cur)) {
      if (typeof step === 'number') return undefined;
      const key = typeof step === 'string' ? step : step.key;
      if (!Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
      cur = cur[key];
    } else {
      return undefined;
    }
  }
  return cur;
}

/** The event types of the streams read (Claude Code's `stream_event` among them). */
export const EVENT_TYPES: readonly string[] = ['assistant', 'tool_call', 'thinking', 'result', 'system', 'user', 'stream_event'];

/**
 * True when `type` is one of {@link EVENT_TYPES}: an event of the agent's run.
 * An event of another type (a wrapper's `status` line) without a session id
 * starts no run of its own.
 */
export function isRunEvent(type: string): boolean {
  return EVENT_TYPES.includes(type);
}

/**
 * True when `event`, of `type`, read without a session id before any
 * session, starts one: an event of the agent's run ({@link isRunEvent}) but
 * a `system` event other than `init`. Claude Code writes its hooks'
 * `hook_started` and `hook_response`, and its `status` pings, as `system`
 * events, before its `init` too, and some of its versions without a session
 * id: like a wrapper's line, such a line starts no run of its own.
 */
export function opensSession(type: string, event: unknown): boolean {
  return isRunEvent(type) && (type !== 'system' || isSystemInit(event));
}

/**
 * True when an event of `type` shows that its session has run: the agent at
 * work ({@link isRunActivity}), or its result. A later `init` of the session
 * starts a run of its own (a resumed session). A `system` event does not:
 * Claude Code's hook and status lines come before the `init` of the run they
 * belong to.
 */
export function showsRun(type: string): boolean {
  return type === 'result' || isRunActivity(type);
}

/**
 * True when an event of `type` is the agent at work (a message, a prompt,
 * thinking, a tool call): after its session's result, such an event is a new
 * run, which the result does not answer for.
 */
export function isRunActivity(type: string): boolean {
  return type === 'assistant' || type === 'tool_call' || type === 'thinking' || type === 'user' || type === 'stream_event';
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
  return sessionField(e) ?? '';
}

/** The event's `session_id`, or undefined when it names none. */
export function sessionField(e: unknown): string | undefined {
  return str(e, 'session_id');
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
  for (const block of content) if (isTextBlock(block)) text += block.text;
  return text;
}

/**
 * The thinking of a message event in Claude Code's dialect: the `thinking`
 * of every `{type: "thinking"}` block of `message.content`, concatenated
 * ('' when there is none). Cursor writes its thinking as events of their
 * own (see {@link thinkingText}).
 */
export function messageThinking(e: unknown): string {
  const content = obj(e, 'message')?.content;
  if (!Array.isArray(content)) return '';
  let thinking = '';
  for (const block of content) if (isObject(block) && block.type === 'thinking' && typeof block.thinking === 'string') thinking += block.thinking;
  return thinking;
}

/** A content block of text: `{type: "text", text}`, or `{text}` alone. */
function isTextBlock(block: unknown): block is JsonObject & { text: string } {
  return isObject(block) && (block.type === 'text' || block.type === undefined) && typeof block.text === 'string';
}

/**
 * True for a message whose content holds a block that is not text (an
 * image, a `tool_use`): what {@link messageText} leaves out.
 */
export function hasOtherContent(e: unknown): boolean {
  const content = obj(e, 'message')?.content;
  return Array.isArray(content) && content.some((block) => !isTextBlock(block));
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

/**
 * True for a message whose content holds a `tool_use` block: Claude Code's
 * dialect, where tool calls are content blocks of `assistant` messages
 * rather than `tool_call` events.
 */
export function hasToolUseBlock(e: unknown): boolean {
  return hasBlock(e, 'tool_use');
}

/** True when a `user` event's message holds a `tool_result` block (Claude Code's dialect: a call's answer). */
export function hasToolResultBlock(e: unknown): boolean {
  return hasBlock(e, 'tool_result');
}

function hasBlock(e: unknown, type: string): boolean {
  const content = obj(e, 'message')?.content;
  return Array.isArray(content) && content.some((block) => isObject(block) && block.type === type);
}

/**
 * One step of a tool call in Claude Code's dialect, as a content block of a
 * message gives it: a `tool_use` block of an `assistant` message (the call,
 * started) or a `tool_result` block of a `user` message (its answer, the
 * call completed).
 */
export interface ClaudeToolStep {
  phase: 'started' | 'completed';
  /** The block's `id` (`tool_use`) or `tool_use_id` (`tool_result`); undefined when it has none. */
  callId: string | undefined;
  /**
   * For `started`: the tool, its arguments its `input`, read as a call named
   * beside its arguments (`{name, arguments}`); undefined when the block
   * names no tool.
   */
  entry?: ToolCallEntry;
  /** For `completed`: `error` (the text of its content the reason) when the block says `is_error`, else `success`. */
  result?: ToolCallResult;
  /** The call that runs the sub-agent whose message holds the block (its `parent_tool_use_id`). */
  parentCallId?: string;
}

/**
 * The tool call steps of an event in Claude Code's dialect, in the order of
 * its blocks: those of an `assistant` message's `tool_use` blocks and of a
 * `user` message's `tool_result` blocks (see {@link ClaudeToolStep}). None
 * for other events.
 */
export function claudeToolSteps(e: unknown, written?: WrittenOf): ClaudeToolStep[] {
  const type = eventType(e);
  const wanted = type === 'assistant' ? 'tool_use' : type === 'user' ? 'tool_result' : undefined;
  const content = wanted === undefined ? undefined : obj(e, 'message')?.content;
  if (!Array.isArray(content)) return [];
  const parent = nonEmpty(str(e, 'parent_tool_use_id'));
  const steps: ClaudeToolStep[] = [];
  for (const block of content) {
    if (!isObject(block) || block.type !== wanted) continue;
    const step: ClaudeToolStep =
      wanted === 'tool_use'
        ? { phase: 'started', callId: blockId(block, 'id', written), entry: toolUseEntry(block) }
        : { phase: 'completed', callId: blockId(block, 'tool_use_id', written), result: toolResultOf(block) };
    if (parent !== undefined) step.parentCallId = parent;
    steps.push(step);
  }
  return steps;
}

/**
 * The calls a `result` of Claude Code's dialect says were refused
 * permission: the `tool_use_id` of each of its `permission_denials`.
 */
export function permissionDenials(e: unknown, written?: WrittenOf): Set<string> {
  const ids = new Set<string>();
  const denials = isObject(e) ? e.permission_denials : undefined;
  if (!Array.isArray(denials)) return ids;
  for (const denial of denials) {
    const id = isObject(denial) ? blockId(denial, 'tool_use_id', written) : undefined;
    if (id !== undefined) ids.add(id);
  }
  return ids;
}

/**
 * A value of an event read again, its numbers the strings of their text as
 * the event's bytes write them (see writtenPlaces), or, given `key`, its
 * member `key` read so; undefined where they do not give it.
 */
export type WrittenOf = (value: unknown, key?: string) => unknown;

/**
 * The id under `key` of a block: a string (an empty one is none), or a
 * number as its text (see numberId: as `written` reads the block again, a
 * number a double does not hold exactly).
 */
function blockId(block: JsonObject, key: string, written?: WrittenOf): string | undefined {
  const id = block[key];
  if (typeof id === 'number' && Number.isFinite(id)) return written === undefined ? String(id) : numberId(id, written(block, key));
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The tool a `tool_use` block calls, its `input` as a function call's `arguments` (an object, or JSON text); undefined when it names none. */
function toolUseEntry(block: JsonObject): ToolCallEntry | undefined {
  const name = str(block, 'name');
  if (name === undefined || name === '') return undefined;
  const body: JsonObject = { name, arguments: block.input };
  return { key: 'function', name, body, toolCall: body };
}

/** The result a `tool_result` block gives its call (see {@link ClaudeToolStep.result}); the block itself is the whole result. */
function toolResultOf(block: JsonObject): ToolCallResult {
  if (!isErrorFlag(block.is_error)) return { status: 'success', variant: 'success', body: {}, result: block };
  const text = withoutErrorTag(contentText(block.content));
  return { status: 'error', variant: 'error', body: text === '' ? {} : { error: text }, result: block };
}

/** `text` without the `<tool_use_error>` tags Claude Code wraps a tool's own error in, when they wrap it whole. */
function withoutErrorTag(text: string): string {
  const m = ERROR_TAG.exec(text);
  return m === null ? text : m[1]!.trim();
}

const ERROR_TAG = /^\s*<tool_use_error>([\s\S]*)<\/tool_use_error>\s*$/;

/**
 * The text of a tool's answer, its `content`: a string, or the texts of its
 * blocks, a line each: `{"text": "…"}` or, as Cursor writes an MCP tool's,
 * `{"text": {"text": "…"}}` (a Claude Code `tool_result` block's, an MCP
 * tool's failure). '' when it holds none.
 */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const block of content) {
    const text = isObject(block) ? (typeof block.text === 'string' ? block.text : str(block.text, 'text')) : undefined;
    if (text !== undefined && text !== '') texts.push(text);
  }
  return texts.join('\n');
}

/**
 * True for a message of a sub-agent in Claude Code's dialect: an event whose
 * `parent_tool_use_id` names the call (`Task`) that runs it. Its text is the
 * sub-agent's, handed back to the agent as that call's result, not the
 * agent's own answer.
 */
export function isSubagentMessage(e: unknown): boolean {
  return isObject(e) && typeof e.parent_tool_use_id === 'string';
}

/**
 * True for an event only Claude Code's dialect has: an `assistant` message
 * with `parent_tool_use_id` or a `tool_use` block, or a `result` with
 * `total_cost_usd` or `num_turns`. `type` is the event's type.
 */
export function isClaudeCodeEvent(e: unknown, type: string): boolean {
  if (!isObject(e)) return false;
  if (type === 'result') return 'total_cost_usd' in e || 'num_turns' in e;
  if (type !== 'assistant') return false;
  return 'parent_tool_use_id' in e || hasToolUseBlock(e);
}

/**
 * The id of a Claude Code `assistant` message (its `message.id`, which the
 * events of one message's blocks share); undefined for another dialect's.
 */
export function claudeMessageId(e: unknown): string | undefined {
  if (!isClaudeCodeEvent(e, 'assistant')) return undefined;
  const message = (e as JsonObject).message;
  return isObject(message) && typeof message.id === 'string' ? message.id : undefined;
}

/** Thinking text of a `thinking` delta, or ''. */
export function thinkingText(e: unknown): string {
  return str(e, 'text') ?? '';
}

/**
 * The event whose bytes are `raw` read again with each number the string of
 * its text as written (see writtenNumbers), for {@link writtenValueText}:
 * read at the first call, once for all the values printed of one event;
 * undefined for no bytes (a record made without them) or bytes that are not
 * JSON.
 */
export function writtenEvent(raw: Buffer): () => unknown {
  let written: unknown;
  let read = false;
  return () => {
    if (!read) {
      read = true;
      written = raw.length === 0 ? undefined : writtenNumbers(raw.toString('utf8'));
    }
    return written;
  };
}

/**
 * The values of the event of `rec` (a record as the reader hands it over)
 * read again as its bytes write their numbers (see writtenPlaces): the
 * bytes read again at the first need, while they are the record's (a
 * reader may reuse them once it is handed over).
 */
export function writtenValues(rec: { readonly event: unknown; readonly raw: Buffer }): WrittenOf {
  let of: WrittenOf | undefined;
  return (value, key) => (of ??= maySpellNumbers(rec.raw) ? writtenPlaces(rec.event, writtenEvent(rec.raw)) : NOTHING_WRITTEN)(value, key);
}

/** The values of an event whose numbers JSON.stringify writes as it did (see maySpellNumbers): none need reading again. */
const NOTHING_WRITTEN: WrittenOf = () => undefined;

/**
 * The compact JSON text of `value`, the value at `steps` of an event, with its
 * numbers as the event's bytes write them (see writtenJsonText): `1.50`,
 * `12345678901234567890`, `-0`, not `1.5`, `12345678901234567000`, `0`.
 * `written`: that event read again (see {@link writtenEvent}), asked for only
 * when the value holds a number; without it, the text of exactJsonText.
 */
export function writtenValueText(value: unknown, written: (() => unknown) | undefined, steps: readonly PathStep[]): string {
  if (written === undefined || !holdsNumber(value)) return exactJsonText(value);
  const tree = written();
  return writtenJsonText(value, tree === undefined ? undefined : valueAt(tree, steps));
}

/**
 * The `result` text of a result event, or undefined when it has none (no
 * `result`, or `null`). A value other than a string (`42`, an object) is its
 * compact JSON text, as `--field result` prints it: its numbers as the
 * event's bytes `raw` write them, when given (see writtenValueText).
 */
export function resultText(e: unknown, raw?: Buffer): string | undefined {
  const value = isObject(e) ? e.result : undefined;
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : writtenValueText(value, raw === undefined ? undefined : writtenEvent(raw), ['result']);
}

/**
 * True for an `is_error` that says yes: `true`, and as a stream written by
 * hand or by another tool may spell it, `1`, `"1"` or `"true"` (any case): a
 * verdict a script trusts does not take a failure so spelt for a success.
 */
function isErrorFlag(value: unknown): boolean {
  if (value === true || value === 1) return true;
  if (typeof value !== 'string') return false;
  const word = value.trim().toLowerCase();
  return word === 'true' || word === '1';
}

/**
 * True when a result event reports failure: `is_error: true`, or a `subtype`
 * other than `success`. A result without either field is taken as success.
 */
export function resultFailed(e: unknown): boolean {
  if (!isObject(e)) return false;
  if (isErrorFlag(e.is_error)) return true;
  // A subtype given that is not `success` (`null` or an object too, not only another string) says the run did not succeed.
  return e.subtype !== undefined && e.subtype !== 'success';
}

/** A subtype that names none, for a message: `""`, `null`, `3`, `true`, `an object`, `an array`. */
function describeValue(v: unknown): string {
  if (v === '') return '""';
  if (Array.isArray(v)) return 'an array';
  if (isObject(v)) return 'an object';
  return String(v);
}

/**
 * A short description of a failed result, for messages: subtype and error
 * text where there is one. A result that says `is_error` under the subtype
 * `success` (Claude Code's, for an API error) is an `error`, not a "success".
 * `raw`: the event's bytes, when given, whose numbers a `result` that is not
 * a string is written with, as `--field result` writes them (see resultText).
 */
export function resultFailureMessage(e: unknown, raw?: Buffer): string {
  const given = str(e, 'subtype');
  // A subtype that is not a string is named as it was written (`subtype null`), not given a name nobody wrote.
  const written = isObject(e) && e.subtype !== undefined && (given === undefined || given === '') ? `subtype ${describeValue(e.subtype)}` : undefined;
  const subtype = given !== undefined && given !== '' && given !== 'success' ? given : isObject(e) && isErrorFlag(e.is_error) ? 'error' : (written ?? given ?? 'failed');
  let detail = str(e, 'error') ?? str(e, 'message') ?? resultText(e, raw);
  if (detail) detail = clipped(detail, 200);
  return detail ? `${subtype}: ${detail}` : subtype;
}

// ---------------------------------------------------------------------------
// Tool calls: which tool a `tool_call` event names, its arguments, its result,
// and the facts a reader wants from it (paths, command, figures, reason).
// ---------------------------------------------------------------------------

/**
 * Keys that newer builds put beside the tool inside `tool_call`: metadata,
 * never the tool itself (`result` is where `function` calls may keep theirs).
 */
export const TOOL_CALL_METADATA_KEYS: ReadonlySet<string> = new Set([
  'toolCallId',
  'startedAtMs',
  'completedAtMs',
  'hookAdditionalContexts',
  'result',
]);

/** The phase of a `tool_call` event: `started`, `completed`, or another subtype (read as neither). */
export type ToolCallPhase = 'started' | 'completed' | 'other';

/** The phase of a `tool_call` event, from its `subtype`. */
export function toolCallPhase(e: unknown): ToolCallPhase {
  const subtype = eventSubtype(e);
  return subtype === 'started' || subtype === 'completed' ? subtype : 'other';
}

/** The tool a `tool_call` event names, as the stream spells it. */
export interface ToolCallEntry {
  /** The key that names the tool: `readToolCall`, `mcpToolCall`, `function`, … */
  key: string;
  /**
   * The tool's name: the key without its `ToolCall` suffix (`read`,
   * `updateTodos`), or the `name` of a `function` call (`function` when it
   * has none).
   */
  name: string;
  /** The object under the key (`{args, result}`, or `{name, arguments}`). */
  body: JsonObject;
  /** The `tool_call` object itself (where the metadata keys live). */
  toolCall: JsonObject;
}

/**
 * Finds the tool in a `tool_call` event. The tool is the key ending in
 * `ToolCall` whose value is an object (the first key is not always the tool:
 * `toolCallId`, `startedAtMs` and others may come before it); else `function`
 * (`{name, arguments}`); else, so that no call is dropped, the first
 * non-metadata key holding an object with `args` or `result`; else the
 * `tool_call` object itself when it names its tool beside its arguments.
 * Undefined when the event has no `tool_call` object or none of these.
 */
export function toolCallEntry(e: unknown): ToolCallEntry | undefined {
  const toolCall = obj(e, 'tool_call');
  if (toolCall === undefined) return undefined;
  let fallback: string | undefined;
  for (const key in toolCall) {
    if (TOOL_CALL_METADATA_KEYS.has(key)) continue;
    const value = toolCall[key];
    if (!isObject(value)) continue;
    if (key.endsWith('ToolCall') && key.length > 'ToolCall'.length) {
      return { key, name: key.slice(0, -'ToolCall'.length), body: value, toolCall };
    }
    if (fallback === undefined && namesCallByKey(key, value)) fallback = key;
  }
  const fn = obj(toolCall, 'function');
  if (fn !== undefined) {
    const name = str(fn, 'name');
    return { key: 'function', name: name !== undefined && name !== '' ? name : 'function', body: fn, toolCall };
  }
  if (fallback !== undefined) return { key: fallback, name: fallback, body: toolCall[fallback] as JsonObject, toolCall };
  return flatCall(toolCall);
}

/** True when `key` of a `tool_call` object, holding `value`, names a tool by itself (`write_file: {args, result}`). */
function namesCallByKey(key: string, value: JsonObject): boolean {
  return key !== 'function' && (has(value, 'args') || has(value, 'result'));
}

/** A flat call, its tool named beside its arguments (`{name, args}`, `{name, arguments}`): read as a `function` call. */
function flatCall(toolCall: JsonObject): ToolCallEntry | undefined {
  const flat = str(toolCall, 'name');
  if (flat !== undefined && flat !== '' && (has(toolCall, 'args') || has(toolCall, 'arguments') || has(toolCall, 'result'))) {
    return { key: 'function', name: flat, body: toolCall, toolCall };
  }
  return undefined;
}

/**
 * The other tools the `tool_call` object of `entry` names: keys ending in
 * `ToolCall` (one whose value is no object, a call of that tool whose
 * arguments cannot be read), `function`, other keys whose values hold
 * `args` or a `result` (`write_file`, as toolCallEntry reads one alone), and
 * a tool named beside its arguments in the `tool_call` object itself, beside
 * the one `entry` found. An event names one tool; one that names more is
 * read as a call of each.
 */
export function otherToolEntries(entry: ToolCallEntry): readonly ToolCallEntry[] {
  // Asked of every tool call event, which names one tool: nothing is made for it.
  let out: ToolCallEntry[] | undefined;
  const toolCall = entry.toolCall;
  for (const key in toolCall) {
    if (key === entry.key || TOOL_CALL_METADATA_KEYS.has(key)) continue;
    const value = toolCall[key];
    const named = key.endsWith('ToolCall') && key.length > 'ToolCall'.length;
    if (!isObject(value)) {
      // (A string or a list there: the tool, its arguments not read.)
      if (named && (typeof value === 'string' || Array.isArray(value))) (out ??= []).push({ key, name: key.slice(0, -'ToolCall'.length), body: {}, toolCall });
      continue;
    }
    if (named) (out ??= []).push({ key, name: key.slice(0, -'ToolCall'.length), body: value, toolCall });
    else if (!BESIDE_NAME.has(key) && namesCallByKey(key, value)) (out ??= []).push({ key, name: key, body: value, toolCall });
    else if (key === 'function') {
      const name = str(value, 'name');
      (out ??= []).push({ key, name: name !== undefined && name !== '' ? name : 'function', body: value, toolCall });
    }
  }
  // A tool named beside its arguments in the `tool_call` object itself (see toolCallEntry), beside another.
  if (entry.body !== toolCall && typeof toolCall.name === 'string') {
    const flat = flatCall(toolCall);
    if (flat !== undefined) (out ??= []).push(flat);
  }
  return out ?? NO_ENTRIES;
}

const NO_ENTRIES: readonly ToolCallEntry[] = Object.freeze([]);

/**
 * The call id of a `tool_call` event: its `call_id`, else the `toolCallId`
 * beside the tool or in its args. An empty id is none: calls that all say
 * `""` are not one call. Ids may hold newlines: print them with
 * `visibleOneLine`. A numeric id is the number's text: as `written`, the
 * event read again (see writtenValues), writes it where a double does not
 * hold it exactly (see numberId).
 */
export function toolCallId(e: unknown, entry: ToolCallEntry | undefined = toolCallEntry(e), written?: WrittenOf): string | undefined {
  const id = str(e, 'call_id');
  if (id !== undefined && id !== '') return id;
  // A numeric id is still an id.
  const n = num(e, 'call_id');
  if (n !== undefined) return written === undefined ? String(n) : numberId(n, written(e, 'call_id'));
  if (entry === undefined) return undefined;
  return nonEmpty(str(entry.toolCall, 'toolCallId')) ?? nonEmpty(str(entry.body, 'toolCallId')) ?? nonEmpty(str(obj(entry.body, 'args'), 'toolCallId'));
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === '' ? undefined : s;
}

/** A call's arguments, as far as they could be read. */
export interface ToolCallArgs {
  /** The arguments object; undefined when the event carries none (a `completed` may not). */
  args: JsonObject | undefined;
  /**
   * Set when a `function` call's `arguments` string is not a JSON object:
   * `not JSON` or `not an object`. `args` then holds only what could be
   * picked out of the text (see salvageArguments): the strings of the keys
   * that name paths, commands and URLs, and lists of paths.
   */
  error?: 'not JSON' | 'not an object';
  /** With `error`: the `arguments` value as the stream gave it (the text, or what else it was). */
  given?: unknown;
}

// Keys whose values are worth salvaging from broken `arguments` text: every key the audit reads a path, a command or a
// URL under, and the lists of paths (made at the first use: PATH_KEYS and the others are defined below).
let salvageKeys: RegExp | undefined;
// The same keys given a list (of paths, or a command's words), salvaged string by string.
let salvageLists: RegExp | undefined;
const SALVAGE_ITEM = /\s*("(?:[^"\\]|\\.)*")\s*(,|\])?/y;

/** The keys {@link salvageArguments} picks out, as alternatives of a regular expression. */
function salvagedKeys(): string {
  return [...new Set([...PATH_KEYS, ...URI_KEYS, ...MOVE_KEYS, 'new_name', 'newName', 'command', 'cmd', 'commandLine', 'script', 'paths', 'target_directories'])].join('|');
}

/**
 * The string values of the keys that name paths, commands and URLs that can
 * be picked out of `text`, arguments that are not a JSON object (cut short,
 * say), and the strings of the lists such keys are given (`paths`, a path
 * key given a list, a command given as its words).
 */
function salvageArguments(text: string): JsonObject {
  const out: JsonObject = {};
  if (salvageKeys === undefined || salvageLists === undefined) {
    const keys = salvagedKeys();
    salvageKeys = new RegExp(`"(${keys})"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`, 'g');
    salvageLists = new RegExp(`"(${keys})"\\s*:\\s*\\[`, 'g');
  }
  const lists = salvageLists;
  salvageKeys.lastIndex = 0;
  for (let m = salvageKeys.exec(text); m !== null; m = salvageKeys.exec(text)) {
    try {
      const value = JSON.parse(m[2]!) as unknown;
      // The first value for a key wins, like the tools that read these arguments.
      if (typeof value === 'string' && !(m[1]! in out)) out[m[1]!] = value;
    } catch {
      // an escape the regex let through but JSON does not: skip this field
    }
  }
  lists.lastIndex = 0;
  for (let m = lists.exec(text); m !== null; m = lists.exec(text)) {
    const list: string[] = [];
    SALVAGE_ITEM.lastIndex = lists.lastIndex;
    for (let item = SALVAGE_ITEM.exec(text); item !== null; item = SALVAGE_ITEM.exec(text)) {
      try {
        const value = JSON.parse(item[1]!) as unknown;
        if (typeof value === 'string') list.push(value);
      } catch {
        break;
      }
      if (item[2] !== ',') break;
    }
    if (list.length > 0 && !(m[1]! in out)) out[m[1]!] = list;
  }
  return out;
}

/**
 * The arguments of a call: `args` of a `*ToolCall`, or the `arguments` of a
 * `function` (a JSON string, parsed; an object is taken as is). A broken
 * string, or arguments that are no object (a list, a number), never throw:
 * see {@link ToolCallArgs.error}.
 */
export function toolCallArgs(entry: ToolCallEntry): ToolCallArgs {
  return argumentsRead(entry.body[argumentsKey(entry)]);
}

/** The key of `entry.body` a call's arguments are given under: a `function`'s `arguments` (its `args` when it has only those), else `args`. */
export function argumentsKey(entry: ToolCallEntry): 'args' | 'arguments' {
  return entry.key !== 'function' || (!has(entry.body, 'arguments') && has(entry.body, 'args')) ? 'args' : 'arguments';
}

/**
 * A call's arguments as given (`args`, a `function` call's `arguments`): an
 * object; or JSON text of one, read; or else what of it names paths (see
 * toolCallArgs).
 */
function argumentsRead(raw: unknown): ToolCallArgs {
  if (raw === undefined || raw === null) return { args: undefined };
  if (isObject(raw)) return { args: raw };
  if (typeof raw !== 'string') return { args: {}, error: 'not an object', given: raw };
  let value: unknown;
  try {
    value = parseNested(raw);
  } catch {
    return { args: salvageArguments(raw), error: 'not JSON', given: raw };
  }
  // Not an object (a list of argument objects, say): what of it names paths picked out of its text, as of broken text.
  return isObject(value) ? { args: value } : { args: salvageArguments(raw), error: 'not an object', given: raw };
}

/**
 * The arguments of a function call beside those {@link toolCallArgs} reads:
 * the object under `args` beside its `arguments` (both count: one does not
 * hide the other), and, where the `arguments` text gives a key twice in one
 * object, those arguments read keeping each key's first value (JSON.parse,
 * and so toolCallArgs, keeps the last; the tool the model called may keep
 * the first): every value given counts.
 */
export function otherArgs(entry: ToolCallEntry): JsonObject[] {
  if (entry.key !== 'function' || !has(entry.body, 'arguments')) return [];
  const out: JsonObject[] = [];
  const beside = obj(entry.body, 'args');
  if (beside !== undefined) out.push(beside);
  const raw = entry.body.arguments;
  const first = typeof raw === 'string' ? firstValues(raw) : undefined;
  if (isObject(first)) out.push(first);
  return out;
}

/**
 * An MCP call's own arguments, each place it gives them: an object under
 * `args` and under `arguments`, or, as a function call's are, JSON text
 * there (what of it can be read when it is not JSON, as for a function
 * call). Every one is read: one of them empty does not hide the other.
 */
function mcpArguments(args: JsonObject, facts: ToolCallFacts): JsonObject[] {
  const out: JsonObject[] = [];
  for (const key of ['args', 'arguments']) {
    const raw = args[key];
    if (isObject(raw)) out.push(raw);
    else if (typeof raw === 'string') {
      try {
        const value: unknown = parseNested(raw);
        if (isObject(value)) out.push(value);
        else {
          // Not an object (a list): what of it names paths picked out, and the checks cannot clear the call.
          out.push(salvageArguments(raw));
          facts.argsUnread = true;
        }
        // A key given twice: its first value too, as of a function call's arguments (see otherArgs).
        const first = firstValues(raw);
        if (isObject(first)) out.push(first);
      } catch {
        out.push(salvageArguments(raw));
        facts.argsUnread = true;
      }
    }
  }
  return out;
}

/** How a call ended, as its result says. */
export type ToolResultStatus = 'success' | 'error' | 'rejected' | 'spawnError' | 'failure' | 'unknown';

/** The result variants the stream is known to use, under `result`. */
export const TOOL_RESULT_VARIANTS: readonly ToolResultStatus[] = ['success', 'error', 'rejected', 'spawnError', 'failure'];

/** A call's result. */
export interface ToolCallResult {
  /** The variant, or `unknown` when the result holds none of the known ones. */
  status: ToolResultStatus;
  /** The key the variant was found under (for `unknown`: the first key holding an object, if any). */
  variant?: string;
  /** The variant's value (`{exitCode, stdout, …}`, `{reason}`, or a plain string). */
  body: unknown;
  /** The whole `result` value. */
  result: unknown;
}

/**
 * The result of a call: `result` beside its `args` (or, for `function`
 * calls, beside the function). Sibling keys of the variant (`isBackground`)
 * are ignored. Undefined when the event carries no result.
 */
export function toolCallResult(entry: ToolCallEntry): ToolCallResult | undefined {
  let result = entry.body.result;
  if ((result === undefined || result === null) && entry.key === 'function') result = entry.toolCall.result;
  if (result === undefined || result === null) return undefined;
  if (!isObject(result)) return { status: 'unknown', body: result, result };
  let other: string | undefined;
  let refused: string | undefined;
  for (const key in result) {
    const value = result[key];
    // A variant said not to be (`"rejected": false`) is none.
    if (value === undefined || value === null || value === false) continue;
    if ((TOOL_RESULT_VARIANTS as readonly string[]).includes(key)) {
      // A refusal beside a variant of a call that acted (`rejected` and `success` both) does not hide the latter.
      if (key === 'rejected' || key === 'spawnError') {
        refused ??= key;
        continue;
      }
      // An MCP tool's own failure comes as a `success` of the call whose body says so (its CallToolResult's `isError`).
      const status = key === 'success' && isObject(value) && value.isError === true ? 'error' : (key as ToolResultStatus);
      return { status, variant: key, body: value, result };
    }
    if (other === undefined && isObject(value)) other = key;
  }
  if (refused !== undefined) return { status: refused as ToolResultStatus, variant: refused, body: result[refused], result };
  return { status: 'unknown', variant: other, body: other === undefined ? undefined : result[other], result };
}

/** How deep sub-agents' calls are followed: those of a sub-agent that a sub-agent ran are at depth 2. */
export const MAX_SUBAGENT_DEPTH = 16;

/** True when a call's result lists the steps of a sub-agent it ran (see {@link subagentCalls}). */
export function ranSubagent(result: ToolCallResult | undefined): boolean {
  // Asked of every completion: answered without making the lists.
  const whole = result?.result;
  if (!isObject(whole)) return false;
  if ('conversationSteps' in whole) return true;
  for (const key in whole) {
    const value = whole[key];
    if (isObject(value) && 'conversationSteps' in value) return true;
  }
  return false;
}

/**
 * The lists of a sub-agent's steps a result holds: under its variant
 * (`success.conversationSteps`), under any other of its keys (a failed task's
 * `error` beside it, a key not known), or at its top.
 */
function stepLists(result: ToolCallResult | undefined): unknown[] {
  const whole = result?.result;
  if (!isObject(whole)) return [];
  const lists: unknown[] = [];
  if ('conversationSteps' in whole) lists.push(whole.conversationSteps);
  for (const key in whole) {
    const value = whole[key];
    if (isObject(value) && 'conversationSteps' in value) lists.push(value.conversationSteps);
  }
  return lists;
}

/**
 * The tool calls a sub-agent made, as Cursor's `taskToolCall` lists them in
 * its result (`success.conversationSteps`, each step a message or a
 * `toolCall`, a `tool_call` object of its own): each as an event that holds
 * it, `{tool_call: …}`, to be read as a `tool_call` event is. None when the
 * result lists no steps. A step of another shape (a `toolCall` that is not an
 * object, a step that is an array, steps that are not an array, or a step
 * that names a call under another key) is a call that names no tool,
 * `{tool_call: {}}`: it may hold one. Steps are read wherever the result
 * holds them (see stepLists). These calls are printed nowhere else in the
 * stream.
 */
export function subagentCalls(result: ToolCallResult | undefined): JsonObject[] {
  const calls: JsonObject[] = [];
  for (const steps of stepLists(result)) {
    if (steps === null) continue;
    // Steps of another shape may hold calls all the same: each stands for a call that names no tool (`{tool_call: {}}`).
    if (!Array.isArray(steps)) {
      calls.push(UNKNOWN_CALL);
      continue;
    }
    calls.push(...stepCalls(steps));
  }
  return calls;
}

/** The calls of one list of steps (see {@link subagentCalls}). */
function stepCalls(steps: unknown[]): JsonObject[] {
  const calls: JsonObject[] = [];
  for (const step of steps) {
    if (Array.isArray(step)) calls.push(UNKNOWN_CALL);
    if (!isObject(step)) continue;
    if (step.toolCall === undefined || step.toolCall === null) {
      // A step that names a call under another key (`{tool_call: …}`, a message's `toolCalls`) may hold one.
      if (namesCall(step)) calls.push(UNKNOWN_CALL);
      continue;
    }
    calls.push(isObject(step.toolCall) ? { tool_call: step.toolCall } : UNKNOWN_CALL);
  }
  return calls;
}

/** A key that names a call or calls, in any case: `tool_call`, `toolCalls`, `writeToolCall`. */
const CALL_KEY = /tool_?calls?$/i;

/** True when `value` holds, at any depth, a key that names a call (see {@link CALL_KEY}). */
function namesCall(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (const x of v) if (typeof x === 'object' && x !== null) stack.push(x);
    } else if (isObject(v)) {
      for (const key in v) {
        if (CALL_KEY.test(key)) return true;
        const x = v[key];
        if (typeof x === 'object' && x !== null) stack.push(x);
      }
    }
  }
  return false;
}

/** A call that names no tool the audit can find (see subagentCalls). */
const UNKNOWN_CALL: JsonObject = Object.freeze({ tool_call: Object.freeze({}) }) as JsonObject;

/**
 * What a tool does, as far as the audit is concerned. Names are compared
 * without case, `_` or `-`, so `readToolCall`, `read_file` and `ReadFile`
 * are all `read`.
 */
export type ToolKind = 'read' | 'write' | 'edit' | 'delete' | 'shell' | 'ls' | 'glob' | 'grep' | 'mcp' | 'other';

const KIND_BY_NAME: ReadonlyMap<string, ToolKind> = new Map<string, ToolKind>([
  // Cursor's `readLints` reads the diagnostics of the files it names.
  // MCP's filesystem server reads with `read_text_file`, `read_media_file`, `read_multiple_files` too; Gemini CLI with
  // `read_many_files`.
  ...['read', 'readfile', 'view', 'viewfile', 'cat', 'readlints', 'readtextfile', 'readmediafile', 'readmultiplefiles', 'readmanyfiles'].map(
    (n) => [n, 'read'] as const,
  ),
  // A move or rename changes both of its paths. (A copy reads one and writes the other: it stays of unknown kind, see COPY_NAMES.)
  // (`write_to_file`: Cline's and Windsurf's; `create_new_file`: Continue's.)
  ...['write', 'writefile', 'createfile', 'create', 'move', 'movefile', 'rename', 'renamefile', 'mv', 'writetofile', 'createnewfile'].map(
    (n) => [n, 'write'] as const,
  ),
  // (`edit_block`: Desktop Commander's, an MCP server's; `replace`: Gemini CLI's; `replace_in_file`: Cline's; `apply_diff`,
  // `insert_content`, `search_and_replace`: Roo Code's; `edit_existing_file`, `single_find_and_replace`: Continue's.)
  ...[
    'edit',
    'editfile',
    'editfiles',
    'multiedit',
    'strreplace',
    'searchreplace',
    'applypatch',
    'patch',
    'notebookedit',
    'editnotebook',
    'editblock',
    'replace',
    'replaceinfile',
    'applydiff',
    'insertcontent',
    'searchandreplace',
    'editexistingfile',
    'singlefindandreplace',
  ].map((n) => [n, 'edit'] as const),
  // A directory's delete too: it deletes every file under it.
  ...['delete', 'deletefile', 'remove', 'removefile', 'rm', 'rmdir', 'deletedirectory', 'deletedir', 'removedirectory', 'removedir', 'deletefolder', 'removefolder'].map(
    (n) => [n, 'delete'] as const,
  ),
  ...[
    'shell',
    'bash',
    'terminal',
    'runterminalcmd',
    'runterminalcommand',
    'runcommand',
    'exec',
    'command',
    'executecommand',
    'runshellcommand',
    'executebash',
    'shellexec',
    'localshell',
    'execcommand',
    'runinterminal',
    'execute',
    'sh',
    'zsh',
    'powershell',
    'pwsh',
    'cmd',
    'container.exec',
    'shellcommand',
    'bashcommand',
    'terminalcommand',
    'runbash',
    'execshell',
  ].map(
    (n) => [n, 'shell'] as const,
  ),
  // (`list_files`: Cline's; `find_by_name`: Windsurf's; `file_glob_search`: Continue's; `search_file_content`: Gemini CLI's;
  // `search_files`: Cline's, its filter `file_pattern`.)
  ...['ls', 'list', 'listdir', 'listdirectory', 'listfiles'].map((n) => [n, 'ls'] as const),
  ...['glob', 'filesearch', 'globfilesearch', 'find', 'findfiles', 'findbyname', 'fileglobsearch'].map((n) => [n, 'glob'] as const),
  ...['grep', 'grepsearch', 'search', 'ripgrep', 'rg', 'codebasesearch', 'searchfilecontent', 'searchfiles'].map((n) => [n, 'grep'] as const),
  ...['mcp', 'callmcptool'].map((n) => [n, 'mcp'] as const),
]);

// Tools that, given no path, read no file's content but what the whole workspace gives: Cursor's `readLints`, its
// diagnostics.
const WORKSPACE_READS: ReadonlySet<string> = new Set(['readlints']);

/**
 * A tool name as kinds are found by it, and as `--tool` and `--deny-tool`
 * compare it: without case, `_` or `-` (`web_fetch` is `webFetch`), and
 * without the `ToolCall` its key in the stream ends with (`shellToolCall` is
 * `shell`).
 */
export function toolNameKey(name: string): string {
  const key = lowerEach(name.replace(/[-_]/g, ''));
  return key.length > TOOL_CALL.length && key.endsWith(TOOL_CALL) ? key.slice(0, -TOOL_CALL.length) : key;
}

const TOOL_CALL = 'toolcall';

/** Tools that move or rename a file, by {@link toolNameKey}: the paths they name under {@link MOVE_KEYS} are theirs too. */
const MOVE_NAMES: ReadonlySet<string> = new Set(['move', 'movefile', 'rename', 'renamefile', 'mv']);
// Argument keys of a move's two paths, beside those of PATH_KEYS (oldPath, newPath).
const MOVE_KEYS = ['source', 'destination', 'src', 'dest', 'dst', 'from', 'to', 'source_path', 'destination_path', 'from_path', 'to_path', 'target'];
// Argument keys of the path a move takes away.
const MOVE_FROM_KEYS = ['source', 'src', 'from', 'source_path', 'from_path', 'oldPath', 'old_path'];
// Argument keys of the path a move puts the file at: beside one, a path under another key (`path`, `file`) is what it moves.
const MOVE_TO_KEYS = ['destination', 'dest', 'dst', 'to', 'destination_path', 'to_path', 'target', 'newPath', 'new_path'];

/**
 * Tools that copy a file, by {@link toolNameKey}: they read one path and
 * write the other, which one call's single kind cannot say, so they stay
 * of kind `other`, both paths touched (checked as read and as written).
 * Their paths are named under {@link COPY_KEYS}.
 */
const COPY_NAMES: ReadonlySet<string> = new Set(['copy', 'copyfile', 'cp']);
// Argument keys of a copy's two paths, beside those of PATH_KEYS.
const COPY_KEYS = MOVE_KEYS;

/**
 * Pushes the paths `o` names under {@link MOVE_KEYS} or {@link COPY_KEYS},
 * for a tool whose {@link toolNameKey} is `key`; a move's source also to
 * `movedFrom`.
 */
function pushMoveKeys(facts: ToolCallFacts, key: string | undefined, o: JsonObject, windows: boolean): void {
  if (key === undefined) return;
  if (MOVE_NAMES.has(key)) {
    facts.moves = true;
    // Named where it is put (`destination`), the file under a path key of another name (`path`) is the one moved away.
    if (MOVE_TO_KEYS.some((k) => stringsOf(o[k]).length > 0)) {
      for (const k of [...PATH_KEYS, 'paths']) if (!MOVE_TO_KEYS.includes(k)) for (const p of stringsOf(o[k])) pushPath((facts.movedFrom ??= []), p);
      for (const k of URI_KEYS) for (const p of stringsOf(o[k])) if (FILE_URI.test(p)) pushPath((facts.movedFrom ??= []), p);
    }
    for (const k of MOVE_KEYS) pushPath(facts.argPaths, o[k]);
    for (const k of MOVE_FROM_KEYS) if (typeof o[k] === 'string' && o[k] !== '') pushPath((facts.movedFrom ??= []), o[k]);
    // A rename given the file's new name (`{path, new_name}`): it puts the file beside where it was, after the path's
    // last separator (in a Windows session, `\` too). A new name that is a path (`./b.ts`, `../b.ts`) may be read from
    // there or from the cwd: both; one from a root (`/x/b.ts`, `C:\x`) is where it says.
    const name = str(o, 'new_name') ?? str(o, 'newName');
    const from = facts.argPaths[0];
    if (facts.argPaths.length === 1 && from !== undefined && name) {
      pushPath((facts.movedFrom ??= []), from);
      const slash = windows ? Math.max(from.lastIndexOf('/'), from.lastIndexOf('\\')) : from.lastIndexOf('/');
      if (windows ? /[/\\]/.test(name) : name.includes('/')) pushPath(facts.argPaths, name);
      if (!(windows ? /^(?:[/\\]|[A-Za-z]:)/.test(name) : name.startsWith('/'))) pushPath(facts.argPaths, slash === -1 ? name : `${from.slice(0, slash + 1)}${name}`);
    }
  } else if (COPY_NAMES.has(key)) {
    for (const k of COPY_KEYS) pushPath(facts.argPaths, o[k]);
    // A `copy` that names no path may copy no file (text to a clipboard); `copy_file` and `cp` copy one.
    if (key !== 'copy' || facts.argPaths.length > 0) facts.copies = true;
  }
}

/** Argument keys of a list of changes, each an object that may name its file (`edits: [{ path, … }]`). */
const CHANGE_LIST_KEYS = ['edits', 'files', 'changes', 'operations'];

/** Pushes the paths the objects of `o`'s lists of changes name (see {@link CHANGE_LIST_KEYS}). */
function pushChangeListPaths(list: string[], o: JsonObject): void {
  for (const key of CHANGE_LIST_KEYS) {
    const items = o[key];
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      if (!isObject(item)) continue;
      pushPathKeys(list, item);
      pushPaths(list, item.paths);
    }
  }
}

/**
 * The tool name or kind the audit knows that `name` is most likely a
 * misspelling of (`writes`, `Shel`): one a few edits away, by
 * {@link toolNameKey}; undefined for a name it knows, or for one far from
 * every name it knows (another tool's, such as an MCP tool's).
 */
export function nearToolName(name: string): string | undefined {
  const key = toolNameKey(name);
  if (key === 'other' || KIND_BY_NAME.has(key)) return undefined;
  const most = Math.min(2, Math.floor(key.length / 3));
  let best: string | undefined;
  let bestDistance = most + 1;
  for (const known of KIND_BY_NAME.keys()) {
    const d = editDistance(key, known, bestDistance);
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance of `a` and `b`, or `limit` when it is at least that. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return Math.min(row[b.length]!, limit);
}

/** A tool call event's type, or the key of its `tool_call` object. */
const TOOL_CALL_NAME = /"tool_call"/;
/** The key of a `tool_call` object that names its tool (`readToolCall`). */
const TOOL_CALL_KEY = /"([^"\\]+ToolCall)"\s*:/;
/** A `function` call, and its tool's name where it comes first and whole (`"function":{"name":"write_file"`). */
const FUNCTION_KEYS = /"function"\s*:\s*\{(?:\s*"name"\s*:\s*"([^"\\]*)")?/g;
/** A `\u` escape, which may spell any letter of those. */
const ESCAPE_U = /\\u([0-9a-fA-F]{4})/g;

/**
 * What a line that could not be read shows of tool calls: undefined when it
 * holds none (no `"tool_call"`, as a type or as a key, no key naming a tool,
 * `"readToolCall":`, and no `"function":` call; inside a string these would
 * be escaped, `\"tool_call\"`, and are not found); else, as many as it shows,
 * the line's own and those of events glued after it or of calls inside it (a
 * sub-agent's), the keys naming their tools (`keys`: `readToolCall`), and the
 * names of tools named otherwise (`names`): the name of each `function` call
 * (`write_file`), or `function` where the line does not show it first in the
 * call, and the tools named beside their arguments (see flatToolNames). A
 * line of an event written over several lines is such a line when it shows
 * any of them (a `name` key, there, as the tool of no known kind it may
 * be). The line's `\u` escapes are read as what they spell
 * (`"tool\u005fcall"`). The whole line is searched, read as Latin-1 (every
 * byte one character), a piece at a time: a line may be longer than a string
 * can be. Its structure is walked in `walked`, the line itself unless told
 * otherwise (one in UTF-16, read as its text).
 */
export function unreadToolCalls(raw: Buffer, walked: Buffer = raw): { keys: string[]; names: string[] } | undefined {
  const keys = new Set<string>();
  const names = new Set<string>();
  let found = false;
  for (let start = 0; ; start += UNREAD_PIECE) {
    // Pieces overlap, so that what is cut at one's end is whole in the next.
    const text = unescapedPiece(raw, start);
    if (TOOL_CALL_NAME.test(text)) found = true;
    for (const m of text.matchAll(TOOL_CALL_KEYS)) {
      keys.add(m[1]!);
      found = true;
    }
    for (const m of text.matchAll(FUNCTION_KEYS)) {
      names.add(m[1] !== undefined && m[1] !== '' ? m[1] : 'function');
      found = true;
    }
    if (start + UNREAD_PIECE + UNREAD_OVERLAP >= raw.length) break;
  }
  const flat = flatToolNames(walked);
  for (const name of flat.names) names.add(name);
  if (flat.fragment && flat.names.length > 0) found = true;
  return found ? { keys: [...keys], names: [...names] } : undefined;
}

/** The piece of `raw` from `start` that unreadToolCalls searches, as Latin-1, its `\u` escapes read. */
function unescapedPiece(raw: Buffer, start: number): string {
  const text = raw.toString('latin1', start, Math.min(raw.length, start + UNREAD_PIECE + UNREAD_OVERLAP));
  return text.includes('\\u') ? text.replace(ESCAPE_U, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : text;
}

/**
 * The tools `raw` names beside their arguments in `tool_call` objects
 * (`{"name":"write_file","args":…}`, a flat call; see toolCallEntry): the
 * `name` member of each such object, the values inside it stepped over, or
 * `function` for one cut short (before its value too). Read by a walk of the
 * line's structure, value after value (events glued together too), as far
 * as it goes: where the walk meets what is not JSON (a line broken there, or
 * one line of an event written over several: a `fragment`), a `"name"` key
 * from the last string read before that place on counts as a tool of no
 * known kind (`function`).
 */
export function flatToolNames(raw: Buffer): { names: string[]; fragment: boolean } {
  const names: string[] = [];
  // One entry for each object or array open: a `tool_call` object's frame, false for another object, null for an array.
  const open: (CallFrame | false | null)[] = [];
  // The key of the member being read in the innermost object, and where the last string read started.
  let key: string | undefined;
  let lastString = -1;
  let state: number = Walk.Value;
  let first = true;
  // Of the value at the top being walked: its `type` is `tool_call`, and its `tool_call` object has opened.
  let eventIsCall = false;
  let callOpened = false;
  // A byte order mark before the line's first value is none of it.
  let i = bomLength(raw, raw.length);
  const n = raw.length;
  while (i < n) {
    const c = raw[i]!;
    if (isJsonSpace(c)) {
      i++;
      continue;
    }
    // A line that starts otherwise than a value does (`"key": …`, `},`) is one of an event written over several.
    if (first && c !== 0x7b && c !== 0x5b) return { names: nameKeyAfter(raw, i) ? ['function'] : [], fragment: true };
    first = false;
    const top = open.length === 0 ? undefined : open[open.length - 1];
    if (state === Walk.Value) {
      if (top && key !== undefined && BESIDE_NAME.has(key)) top.args = true;
      if (c === 0x7b) {
        // A member holding an object names its tool by its key (`write_file`), but for the arguments, a function call
        // (whose name FUNCTION_KEYS reads) and a key such as `readToolCall` (which TOOL_CALL_KEYS reads).
        if (top && key !== undefined && key !== 'function' && !BESIDE_NAME.has(key) && !TOOL_CALL_METADATA_KEYS.has(key) && !(key.length > 8 && key.endsWith('ToolCall'))) {
          names.push(key);
        }
        if (open.length === 0) eventIsCall = callOpened = false;
        else if (open.length === 1 && (key === 'tool_call' || key === 'toolCall')) callOpened = true;
        open.push(top !== undefined && top !== null && (key === 'tool_call' || key === 'toolCall') ? { named: false, args: false } : false);
        state = Walk.Key;
      } else if (c === 0x5b) {
        open.push(null);
      } else if (c === 0x5d && top === null) {
        open.pop();
        state = Walk.After;
      } else if (c === 0x22) {
        const end = closingQuote(raw, i + 1, i + 1);
        // A type cut short that may be `tool_call` (`"tool_`): the event may be a call.
        if (end < 0 && open.length === 1 && key === 'type' && 'tool_call'.startsWith(raw.toString('latin1', i + 1, Math.min(n, i + 10)))) eventIsCall = true;
        if (end < 0) break;
        lastString = i;
        if (open.length === 1 && key === 'type' && stringAt(raw, i, end) === 'tool_call') eventIsCall = true;
        if (top && key === 'name') {
          names.push(stringAt(raw, i, end) || 'function');
          top.named = true;
        }
        i = end;
        state = Walk.After;
      } else if (isNumberByte(c)) {
        while (i + 1 < n && isNumberByte(raw[i + 1]!)) i++;
        state = Walk.After;
      } else {
        const length = literalAt(raw, i);
        if (length === 0) {
          // One cut short (`tru`) is a line cut short there.
          if (n - i < 5 && ['true', 'false', 'null'].some((w) => w.startsWith(raw.toString('latin1', i)))) i = n;
          break;
        }
        i += length - 1;
        state = Walk.After;
      }
      key = undefined;
    } else if (state === Walk.Key) {
      if (c === 0x22) {
        const end = closingQuote(raw, i + 1, i + 1);
        if (end < 0) break;
        lastString = i;
        key = stringAt(raw, i, end);
        i = end;
        state = Walk.Colon;
      } else if (c === 0x7d && top !== null) {
        open.pop();
        state = Walk.After;
      } else break;
    } else if (state === Walk.Colon) {
      if (c !== 0x3a) break;
      state = Walk.Value;
    } else if (top === undefined) {
      // A value ended at the top: another may be glued after it.
      state = Walk.Value;
      continue;
    } else if (c === 0x2c) {
      state = top === null ? Walk.Value : Walk.Key;
    } else if ((c === 0x7d && top !== null) || (c === 0x5d && top === null)) {
      open.pop();
    } else break;
    i++;
  }
  // Cut short among a tool_call object's own members (in a key, before its value, in a string value, after a value): what
  // came next, a tool key or a name, is not known. Or in one whose arguments came before any name
  // (`{"args":{…},"name":"write_file"}`).
  const top = open.length === 0 ? undefined : open[open.length - 1];
  if (top && (i >= n || raw[i] === 0x22)) return { names: [...names, 'function'], fragment: false };
  // A tool call event cut short, or broken, before its `tool_call` object: its tool is not known.
  if (open.length > 0 && eventIsCall && !callOpened) names.push('function');
  if (open.some((frame) => frame && frame.args && !frame.named)) names.push('function');
  if (i < n && nameKeyAfter(raw, lastString >= 0 ? Math.min(lastString, i) : i)) names.push('function');
  return { names, fragment: false };
}

/** What a flat call holds beside its name (see flatCall). */
const BESIDE_NAME: ReadonlySet<string> = new Set(['args', 'arguments', 'result']);

/** A `tool_call` object open in a walk (see flatToolNames): whether a `name`, and arguments, were read in it. */
interface CallFrame {
  named: boolean;
  args: boolean;
}

/** Where a walk of a line's structure is (see flatToolNames): before a value, a key, a key's colon, or after a value. */
const Walk = { Value: 0, Key: 1, Colon: 2, After: 3 } as const;

/** The string from the quote at `start` to the one at `end`, its escapes read; as written where they cannot be. */
function stringAt(raw: Buffer, start: number, end: number): string {
  const text = raw.toString('utf8', start, end + 1);
  if (!text.includes('\\')) return text.slice(1, -1);
  try {
    return JSON.parse(text) as string;
  } catch {
    return text.slice(1, -1);
  }
}

/** A byte of a number. */
function isNumberByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/** True when `raw` shows a `"name"` key (spelt with escapes too, or cut before its colon) from `from` on. */
function nameKeyAfter(raw: Buffer, from: number): boolean {
  for (let start = from; ; start += UNREAD_PIECE) {
    if (NAME_KEY.test(unescapedPiece(raw, start))) return true;
    if (start + UNREAD_PIECE + UNREAD_OVERLAP >= raw.length) return false;
  }
}

const NAME_KEY = /"name"\s*(?::|$)/;

const TOOL_CALL_KEYS = new RegExp(TOOL_CALL_KEY.source, 'g');
const UNREAD_PIECE = 16 * 1024 * 1024;
const UNREAD_OVERLAP = 4096;

/** The kind of a tool, from its name (see {@link ToolKind}); `other` for every name not known. */
export function toolKind(name: string): ToolKind {
  return KIND_BY_NAME.get(toolNameKey(name)) ?? 'other';
}

/**
 * How a call touches the paths it names: `read` (contents read), `search`
 * (a directory listed or searched, a file grepped), `write` (created or
 * overwritten), `edit`, `delete`, or `other` (a tool of unknown kind that
 * names a path: it may do anything to it).
 */
export type ToolAccess = 'read' | 'search' | 'write' | 'edit' | 'delete' | 'other';

const ACCESS_BY_KIND: Partial<Record<ToolKind, ToolAccess>> = {
  read: 'read',
  write: 'write',
  edit: 'edit',
  delete: 'delete',
  ls: 'search',
  glob: 'search',
  grep: 'search',
  other: 'other',
  mcp: 'other',
  // A shell given a path (`path`, `file` beside its `command`) may read or write it, as its command says, which is not read.
  shell: 'other',
};

// Argument keys that name a file or directory, in the spellings seen across builds and function tools.
const PATH_KEYS = [
  'path',
  'filePath',
  'file_path',
  'targetFile',
  'target_file',
  'file',
  'targetDirectory',
  'target_directory',
  'relative_workspace_path',
  'directory',
  'dir',
  'filepath',
  // Gemini CLI's (`absolute_path`, `dir_path`), Continue's (`dirPath`), Windsurf's (`TargetFile`, `AbsolutePath`,
  // `SearchPath`, `DirectoryPath`, `SearchDirectory`).
  'absolute_path',
  'absolutePath',
  'AbsolutePath',
  'dir_path',
  'dirPath',
  'TargetFile',
  'FilePath',
  'SearchPath',
  'DirectoryPath',
  'SearchDirectory',
  // A file's name where some tools write what they make (Playwright's MCP server saves a screenshot or a PDF so).
  'filename',
  'fileName',
  'file_name',
  'notebook_path',
  'notebookPath',
  'oldPath',
  'newPath',
  'old_path',
  'new_path',
  // Where Cursor's `readMcpResource` writes the resource it reads.
  'downloadPath',
  'download_path',
];
// The files a patch in the apply_patch format names: `*** Update File: a.ts`, `*** Add File:`, `*** Delete File:`, `*** Move to:`.
// A header may be indented (any white space: the format's own parser trims the line it starts a file with), and an
// indented one may also be a line of context in the file before it.
// The name runs to the line's end, its trailing space taken off after (see pushPatchFiles): `(.+?)\s*$` would try each run of spaces.
// Lines are split at LF alone, as the format's grammar splits them: a CR, U+2028 or U+2029 is part of a name.
const PATCH_FILE = /^([^\S\r\n]*)\*\*\* (Update File|Add File|Delete File|Move to): ([^\n]+)$/;

/** What makes a part of a glob more than a plain name. */
export const GLOB_CHARS = /[*?[\]{}()!+@\\]/;

/**
 * The plain directories a glob's `parts` start with, up to the first with a glob character, joined by `/`: each as the
 * name it stands for (see {@link plainPart}).
 */
export function plainLead(parts: readonly string[]): string {
  const lead: string[] = [];
  for (const part of parts) {
    const plain = plainPart(part);
    if (plain === undefined) break;
    lead.push(plain);
  }
  return lead.join('/');
}

/**
 * The name a part of a glob stands for: itself, or, where each of its glob characters is escaped by a backslash
 * (`secre\ts`, `\[id\]`), the characters escaped (`secrets`, `[id]`), as minimatch and ripgrep read them; undefined for
 * a part with a glob character not escaped (or a backslash that escapes nothing).
 */
export function plainPart(part: string): string | undefined {
  if (!GLOB_CHARS.test(part)) return part;
  if (!part.includes('\\') || GLOB_CHARS.test(part.replace(ESCAPED, ''))) return undefined;
  return part.replace(ESCAPED, (escape) => escape.slice(1));
}

/** A backslash and the character it escapes in a glob. */
const ESCAPED = /\\[^]/gu;

/**
 * Pushes to a glob call's paths the directory its `pattern` names before its
 * first part with a glob character (`secrets` of `secrets/**`, `src/a` of
 * `src/a/*.ts`), under the directory it searches (`.` when it names none);
 * nothing for a pattern of a file name alone (`*.md`).
 */
function pushGlobDirectory(facts: ToolCallFacts, pattern: string, windows: boolean): void {
  for (const dir of patternDirectories(facts, pattern, windows)) pushPath(facts.argPaths, dir);
}

/**
 * The directories a glob call's `pattern` starts with (see globLeads),
 * in each directory it searches (one, or a list: the project when it names
 * none), its backslashes read in a Windows session as there. Past
 * {@link MAX_GLOB_ALTERNATIVES} of them, as for a grep's filters, the deny
 * checks cannot clear the call (`searchFiltersCut`).
 */
function patternDirectories(facts: ToolCallFacts, pattern: string, windows: boolean): string[] {
  const searched = facts.argPaths.length > 0 ? [...facts.argPaths] : ['.'];
  // In a Windows session a backslash separates, as in its paths (`secrets\*`), or escapes, as minimatch reads it: both.
  const spellings = windows && pattern.includes('\\') ? [pattern, pattern.replace(/\\/g, '/')] : [pattern];
  const dirs = new Set<string>();
  for (const spelt of spellings) {
    // The pattern's directories read once, then put in each directory searched.
    const leads = globLeads(facts, spelt);
    for (const one of searched) {
      for (const [dir, rooted] of leads) {
        if (dirs.size === MAX_GLOB_ALTERNATIVES) {
          facts.searchFiltersCut = true;
          return [...dirs];
        }
        dirs.add(rooted ? dir : `${one}/${dir}`);
      }
    }
  }
  return [...dirs];
}

/**
 * The directories a glob call's `pattern` starts with (see pushGlobDirectory),
 * each with whether it is from a root (where it says) or not (under the
 * directory searched): of each alternative of its braces (`{secrets,docs}/*`:
 * `secrets` and `docs`), and with each `**` part of it standing for no
 * directory, as a grep's glob is read (`**` then `/secrets/*` lists what
 * `secrets/*` does). Where they are not all known (too many alternatives,
 * or `**` parts), `facts` says so (see globAlternatives).
 */
function globLeads(facts: ToolCallFacts, pattern: string): Array<[string, boolean]> {
  const leads = new Map<string, boolean>();
  for (const one of globAlternatives(facts, pattern)) {
    const slash = one.lastIndexOf('/');
    const forms = noDirectoryForms(one.slice(0, slash + 1));
    // More `**` parts than are each read as no directory: the directories it lists are not all known.
    if (forms === undefined) facts.searchStarsCut = true;
    const rooted = ROOTED_GLOB.test(one);
    for (const form of forms ?? [one.slice(0, slash + 1)]) {
      const dir = plainLead(form.split('/').slice(0, -1));
      if (dir === '' || dir === '.') continue;
      leads.set(dir, rooted);
    }
  }
  return [...leads];
}

/** How many of a glob's `**` parts are each also read as no directory (see noDirectoryForms). */
export const MAX_EMPTY_STARS = 4;

/**
 * `dir` (the directories of a glob, ending with `/`), and the same with
 * each set of its `**` parts left out, as when each stands for no
 * directory (`**` parts one after another are one: `**` stands for as many
 * directories as `**` twice); undefined past {@link MAX_EMPTY_STARS} of them,
 * where the forms would be too many to try.
 */
export function noDirectoryForms(dir: string): string[] | undefined {
  const parts = dir.split('/').filter((part, at, all) => part !== '**' || all[at - 1] !== '**');
  const stars = parts.flatMap((part, at) => (part === '**' ? [at] : []));
  if (stars.length > MAX_EMPTY_STARS) return undefined;
  const forms = new Set<string>();
  for (let set = 0; set < 1 << stars.length; set++) {
    forms.add(parts.filter((_, at) => !stars.some((star, k) => star === at && (set & (1 << k)) !== 0)).join('/'));
  }
  return [...forms];
}

/**
 * The globs a search's `glob` stands for: each alternative of its braces
 * (`{secrets,docs}/*.pem` is `secrets/*.pem` and `docs/*.pem`, and names no
 * file they do not), a group of one (`{secrets}`) its alternative, as
 * ripgrep reads it; a glob whose braces make no alternatives (one not
 * closed, escaped ones) as given too. Past the alternatives tried, or where
 * they cannot be known, the call's facts say so (`searchFiltersCut`,
 * `searchFiltersUnread`): the deny checks cannot clear it.
 */
function globAlternatives(facts: ToolCallFacts, glob: string): string[] {
  if (glob === '') return [];
  // The expansion also stops at bounds of its own (its total length, its depth); a glob short enough never meets them.
  const grouped = groupsOfOne(glob);
  // Groups of one nested deeper than are read: what it names is not known.
  if (GROUP_OF_ONE.test(grouped)) facts.searchFiltersUnread = true;
  let alternatives: string[];
  try {
    alternatives = braceExpand(grouped, { braceExpandMax: MAX_GLOB_ALTERNATIVES + 1 });
  } catch {
    // Too long for minimatch (64 KiB), or too deep for its expansion: tried as given, and said to be unread.
    facts.searchFiltersUnread = true;
    return [glob];
  }
  if (alternatives.length > MAX_GLOB_ALTERNATIVES || (glob.length > MAX_BRACED_GLOB && glob.includes('{'))) facts.searchFiltersCut = true;
  const tried = alternatives.slice(0, MAX_GLOB_ALTERNATIVES);
  const braced = grouped !== glob || alternatives.length > 1;
  return [...new Set(braced ? tried : [glob, ...tried])];
}

/** A group of one alternative in braces, not escaped (`{secrets}`), which ripgrep reads as that alternative. */
const GROUP_OF_ONE = /(?<!\\)\{((?:[^{},\\]|\\[^])*)\}/;

/** How deep groups of one nested in one another (`{{secrets}}`) are read. */
const MAX_GROUP_DEPTH = 32;

/**
 * `glob` with each group of one (`{secrets}`, `{{secrets}}`, nested up to
 * {@link MAX_GROUP_DEPTH} deep) as its alternative, as ripgrep reads it;
 * deeper ones are left as they are.
 */
export function groupsOfOne(glob: string): string {
  let grouped = glob;
  for (let pass = 0; pass < MAX_GROUP_DEPTH && GROUP_OF_ONE.test(grouped); pass++) grouped = grouped.replace(GROUP_OF_ONE_ALL, '$1');
  return grouped;
}
const GROUP_OF_ONE_ALL = new RegExp(GROUP_OF_ONE.source, 'g');

/** The strings `value` is: itself, or those of a list. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];
}

/**
 * Pushes the files a patch's text names to the call's paths, for the deny
 * checks, indented headers included. A file counts as written only where a
 * header at the line's start writes it (`Update File`, `Add File`, `Move
 * to`); one the patch deletes, moves away (an `Update File` followed by its
 * `Move to`) or names only indented (context, maybe) goes to `movedFrom`
 * too, unless a header writes it.
 */
function pushPatchFiles(facts: ToolCallFacts, patch: string): void {
  const written = new Set<string>();
  const notWritten: string[] = [];
  let updated: string | undefined;
  for (const line of patch.split('\n')) {
    const m = PATCH_FILE.exec(line);
    if (m === null) continue;
    const [, indent, header, text] = m as unknown as [string, string, string, string];
    // The name without the space it ends with; a name of spaces alone, its first.
    const path = text.trimEnd() || text[0]!;
    pushPath(facts.argPaths, path);
    if (indent !== '') {
      notWritten.push(path);
      continue;
    }
    if (header === 'Delete File') notWritten.push(path);
    else written.add(path);
    if (header === 'Move to' && updated !== undefined) {
      written.delete(updated);
      notWritten.push(updated);
    }
    updated = header === 'Update File' ? path : undefined;
  }
  for (const path of notWritten) if (!written.has(path)) pushPath((facts.movedFrom ??= []), path);
}
// How many alternatives of a grep's glob (`{a,b}`, `{1..9}`) become filters of their own.
export const MAX_GLOB_ALTERNATIVES = 1000;
// How long a search's glob with braces may be for its alternatives to be known whole: each is no longer than the glob,
// so the 1000 tried (and one more, which says there are more) stay under the expansion's bound on their total length
// (4,000,000 characters), past which it stops without a word, and its nesting under 1000 deep.
const MAX_BRACED_GLOB = 3900;
// Argument keys a patch's text is given under.
const PATCH_KEYS = ['input', 'patch', 'patchText', 'patch_text'];

/** The files of each patch the arguments `o` of an edit tool give under {@link PATCH_KEYS} (see pushPatchFiles). */
function pushPatchKeys(facts: ToolCallFacts, o: JsonObject): void {
  for (const key of PATCH_KEYS) {
    const patch = o[key];
    if (typeof patch === 'string' && patch.includes('*** ')) pushPatchFiles(facts, patch);
  }
}
// Keys of a result variant that name the path acted on (often made absolute by the agent).
const RESULT_PATH_KEYS = ['path', 'filePath', 'file_path', 'deletedFile'];

/** The facts of one call an audit or a summary line wants; every field may be missing. */
export interface ToolCallFacts {
  /** The kind of tool (from its name). */
  kind: ToolKind;
  /** How the call touches {@link argPaths} and {@link resultPaths}; undefined for shell calls and calls naming no path. */
  access?: ToolAccess;
  /** Paths named in the arguments, as written (often relative to the session's `cwd`). */
  argPaths: string[];
  /** Paths the result names (`success.path`: often the same file, made absolute). */
  resultPaths: string[];
  /** The path to show for the call: the first argument path, else the first result path. */
  path?: string;
  /** The command of a shell call. */
  command?: string;
  /** A tool of kind `other` given a `command` (or `cmd`) argument: it may run one (see Policy). */
  mayRunCommand?: boolean;
  /** The working directory a shell call ran in, when it names one (an MCP server's shell too). */
  workingDirectory?: string;
  /** The call's arguments ask only for a preview (`dryRun`, `dry_run`: true, as MCP's `edit_file` takes): it meets no `--require-write`. */
  dryRun?: boolean;
  /** The exit code of a shell call. */
  exitCode?: number;
  /** The signal that ended a shell call, when it names one. */
  signal?: string;
  /** How long a shell call ran, in milliseconds, as the result says (`executionTime`). */
  executionMs?: number;
  /** A read: the file's lines (`totalLines`). */
  linesRead?: number;
  /** A read: the file's characters (`totalChars`). */
  charsRead?: number;
  /** A read: the file's size in bytes (`fileSize`). */
  bytesRead?: number;
  /** A write: the lines created (`linesCreated`). */
  linesWritten?: number;
  /** A write: the bytes written (`fileSize`). */
  bytesWritten?: number;
  /** An edit: lines added. */
  linesAdded?: number;
  /** An edit: lines removed. */
  linesRemoved?: number;
  /**
   * The files a grep call is limited to by its own glob (`glob`, `include`),
   * as paths under the directory it searches: `./**\/.env` for a search of
   * `.` with `glob: "**\/.env"` (a glob without a slash names files in any
   * directory, as ripgrep has it: `*.ts` is `**\/*.ts`). The files it reads.
   */
  searchFilters?: string[];
  /** A grep's glob has more alternatives (`{a,b,…}`) than are tried as filters: the files it reads are not all known. */
  searchFiltersCut?: boolean;
  /** A grep's glob cannot be read as a pattern (longer than 64 KiB, braces nested too deep): the files it reads are not known. */
  searchFiltersUnread?: boolean;
  /**
   * A glob call's pattern has more `**` parts apart than are each read as
   * standing for no directory (see noDirectoryForms): what it lists is not
   * all known. (A grep's globs are judged so from its searchFilters, by the
   * checks.)
   */
  searchStarsCut?: boolean;
  /**
   * Arguments given as text that is not JSON (see ToolCallArgs.error), at
   * any event of the call, or an MCP call's own arguments so: the paths
   * that could be picked out of the text are read, but it may name more.
   * toolCallFacts sets it for an MCP call's own arguments; the call's
   * own, read apart by toolCallArgs, are marked by its caller.
   */
  argsUnread?: boolean;
  /**
   * A call that names no path by design: Cursor's `readLints` given
   * arguments that name nothing (`{}`, or `paths` empty), which reads the
   * diagnostics of the whole workspace, not a file's content.
   */
  wholeWorkspace?: boolean;
  /** A move or rename: the paths it takes away (its `source`, `from`, `oldPath`), among its paths; a patch's, also the files it deletes. */
  movedFrom?: string[];
  /** A move or rename (not a patch): each of its paths may be a directory, taken away or put in place whole. */
  moves?: boolean;
  /** A copy: it reads one of its paths and writes the other. */
  copies?: boolean;
  /** The pattern of a glob or grep call. */
  pattern?: string;
  /** The URL of a web fetch. */
  url?: string;
  /** An MCP call: the server (`providerIdentifier`, else `name`). */
  mcpServer?: string;
  /** An MCP call: the tool called on the server (`toolName`). */
  mcpTool?: string;
  /** Why a call did not succeed: the rejection reason or error message of a non-success result. */
  reason?: string;
}

/** A command given as its words (`["bash", "-lc", "cat .env"]`, as some agents run one), joined by spaces; undefined for anything else. */
function commandWords(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0 || !value.every((w) => typeof w === 'string')) return undefined;
  return value.join(' ');
}

/** The keys a shell tool's command is given under: as a line, or as its words. */
const COMMAND_KEYS = ['command', 'cmd', 'commandLine', 'CommandLine', 'script'];

/** The command `o` (a shell tool's arguments) gives under one of {@link COMMAND_KEYS}, its words joined by spaces. */
function commandOf(o: JsonObject): string | undefined {
  for (const key of COMMAND_KEYS) {
    const value = o[key];
    const command = typeof value === 'string' ? value : commandWords(value);
    if (command !== undefined && command !== '') return command;
  }
  return undefined;
}

/** The keys under which the arguments of a tool of unknown kind give a command it may run. */
const GIVEN_COMMAND_KEYS = ['command', 'cmd'];

/** True when `o`, the arguments of a tool of unknown kind, give a `command` or `cmd`: a line, or a list (of its words, or of anything). */
function givesCommand(o: JsonObject): boolean {
  return GIVEN_COMMAND_KEYS.some((key) => typeof o[key] === 'string' || Array.isArray(o[key]));
}

/** Adds `value` to `list` of paths when it is a path (a string, not empty) the list does not hold yet. */
export function pushPath(list: string[], value: unknown): void {
  if (typeof value !== 'string' || value === '') return;
  if (list.length < INDEXED_FROM) {
    if (!list.includes(value)) list.push(value);
    return;
  }
  // A long list (a call naming thousands of paths) is looked up in a set of its own: a search of it at each path
  // would take the square of its length.
  let index = PATH_INDEX.get(list);
  if (index === undefined) PATH_INDEX.set(list, (index = new Set(list)));
  if (index.has(value)) return;
  index.add(value);
  list.push(value);
}

/** How long a list of paths is searched before {@link pushPath} keeps a set of it ({@link PATH_INDEX}). */
const INDEXED_FROM = 32;
/** The set of each long list of paths, which only pushPath adds to. */
const PATH_INDEX = new WeakMap<string[], Set<string>>();

/** {@link pushPath} for a path, or each path of a list (see stringsOf). */
function pushPaths(list: string[], value: unknown): void {
  // (Most calls give no list: nothing made for it.)
  if (value === undefined) return;
  for (const p of stringsOf(value)) pushPath(list, p);
}

/** True when the arguments `o` name nothing: no key, or only `paths` and empty (`{}`, `{"paths": []}`). */
function namesNothing(o: JsonObject): boolean {
  for (const key in o) if (key !== 'paths' || !Array.isArray(o.paths) || o.paths.length > 0) return false;
  return true;
}

/** Each of {@link PATH_KEYS} by its place in the list. */
const PATH_KEY_RANK: ReadonlyMap<string, number> = new Map(PATH_KEYS.map((key, rank) => [key, rank]));

/**
 * Pushes the paths `o` names under {@link PATH_KEYS}, in the order of that
 * list: its own keys are looked up in the list (an object has a few keys;
 * the list has many, and `o` may be any of a hundred shapes).
 */
function pushPathKeys(list: string[], o: JsonObject): void {
  let first: string | undefined;
  let more: string[] | undefined;
  for (const key in o) {
    if (!PATH_KEY_RANK.has(key)) continue;
    if (first === undefined) first = key;
    else (more ??= [first]).push(key);
  }
  // A key may name one path or a list of them (`path: ["a", "b"]`).
  if (more !== undefined) {
    more.sort((a, b) => PATH_KEY_RANK.get(a)! - PATH_KEY_RANK.get(b)!);
    for (const key of more) pushPaths(list, o[key]);
  } else if (first !== undefined) pushPaths(list, o[first]);
  // A resource's URI, or a fetch's URL, when it names a file (Cursor's `readMcpResource`: `file:///repo/.env`); other URIs
  // name no path.
  for (const key of URI_KEYS) {
    const uri = o[key];
    if (typeof uri === 'string' && FILE_URI.test(uri)) pushPath(list, uri);
  }
}

const URI_KEYS = ['uri', 'url'];

/** The directory a shell's arguments say it runs in: its `workingDirectory`, `cwd`, or, as some agents' shells name it, `directory` or `dir` (SHELL_DIRECTORY_KEYS). */
function shellDirectory(args: JsonObject): string | undefined {
  // (`workdir`: Codex's; `Cwd`: Windsurf's.)
  return str(args, 'workingDirectory') || str(args, 'cwd') || str(args, 'workdir') || str(args, 'Cwd') || str(args, 'directory') || str(args, 'dir') || undefined;
}

/** True when a call's arguments ask only for a preview: `dryRun` or `dry_run` given `true`. */
function previewOnly(args: JsonObject): boolean {
  return args.dryRun === true || args.dry_run === true;
}

/** The keys under which some agents' shells name the directory they run in, beside `workingDirectory` and `cwd`. */
const SHELL_DIRECTORY_KEYS: ReadonlySet<string> = new Set(['directory', 'dir']);

/** `o` without `keys` (itself where it has none of them). */
function withoutKeys(o: JsonObject, keys: ReadonlySet<string>): JsonObject {
  if (!Object.keys(o).some((key) => keys.has(key))) return o;
  return Object.fromEntries(Object.entries(o).filter(([key]) => !keys.has(key)));
}

const FILE_URI = /^file:/i;

function reasonOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body || undefined;
  if (!isObject(body)) return undefined;
  for (const key of ['reason', 'error', 'errorMessage', 'message']) {
    const v = body[key];
    if (typeof v === 'string' && v !== '') return v;
    if (isObject(v)) {
      const inner = str(v, 'message') ?? str(v, 'error') ?? str(v, 'reason');
      if (inner) return inner;
    }
  }
  // An MCP tool's failure (`isError`): the text of its content, `{"text": "…"}` or, as Cursor writes it, `{"text": {"text": "…"}}`.
  if (body.isError === true && Array.isArray(body.content)) {
    const text = contentText(body.content);
    if (text !== '') return text;
  }
  return undefined;
}

// A glob from a root: `/repo/*`, `C:/x/*`, `C:\x\*`.
const ROOTED_GLOB = /^(?:\/|[A-Za-z]:[\\/])/;

/**
 * Pushes what a glob or a grep given `args` searches: for a glob, the
 * directories its pattern starts with, in the one searched; for a grep, its
 * own globs, each a filter under each directory searched (`searchFilters`),
 * as a server's glob call's pattern is. `own`: the call's own tool (not a
 * server's that an MCP call calls), whose pattern the facts keep.
 */
function pushSearchScope(facts: ToolCallFacts, kind: 'glob' | 'grep', args: JsonObject, own: boolean, windows: boolean): void {
  // Cursor's glob tool names its pattern `globPattern`; as a function call (`glob_file_search`), `glob_pattern`.
  const pattern =
    kind === 'glob'
      ? (str(args, 'globPattern') ?? str(args, 'glob_pattern') ?? str(args, 'pattern') ?? str(args, 'query'))
      : (str(args, 'globPattern') ?? str(args, 'pattern') ?? str(args, 'query'));
  if (own) facts.pattern = pattern;
  // A glob into a directory (`secrets/**`) searches it: the directories its pattern starts with, in the one searched. Of
  // a server's glob (whose call's paths are `touched`, read or written), as filters, only read.
  if (kind === 'glob') {
    if (pattern === undefined) return;
    if (own) pushGlobDirectory(facts, pattern, windows);
    else {
      const dirs = patternDirectories(facts, pattern, windows);
      if (dirs.length > 0) facts.searchFilters = [...new Set([...(facts.searchFilters ?? []), ...dirs])];
    }
    return;
  }
  // A grep's own globs, each a filter under each directory searched.
  const globs = ['glob', 'include', 'include_pattern', 'file_pattern', 'filePattern', 'Includes'].flatMap((key) => stringsOf(args[key]));
  // Each directory or file searched (one, or a list), the project when it names none.
  const dirs = facts.argPaths.length > 0 ? [...facts.argPaths] : ['.'];
  const filters = new Set<string>(facts.searchFilters);
  filtering: for (const glob of globs) {
    // `{secrets,docs}/*.pem` reads the files of each alternative: each is a filter of its own (see globAlternatives).
    for (const one of globAlternatives(facts, glob)) {
      for (const dir of dirs) {
        // Past as many filters as a glob's alternatives are tried, the deny checks cannot clear the call.
        if (filters.size === MAX_GLOB_ALTERNATIVES) {
          facts.searchFiltersCut = true;
          break filtering;
        }
        // A glob without a slash names files at any depth; one from a root, the files under the directory searched
        // (as ripgrep roots it there), or those it names.
        filters.add(`${dir}/${one.includes('/') ? one : `**/${one}`}`);
        if (ROOTED_GLOB.test(one)) filters.add(one);
      }
    }
  }
  if (filters.size > 0) facts.searchFilters = [...filters];
}

/**
 * The facts of a call from what its events carry: its arguments and its
 * result, if it has one yet. A `completed` event may carry no arguments: pass
 * the facts of its `started` event as `fromStart`, and the facts drawn from
 * arguments (paths, command, pattern, url, MCP names) are taken from them.
 * `windows`: the session's `cwd` is a Windows path, where a backslash
 * separates (a rename's new name is put after it; a glob call's pattern is
 * read with it as a separator too).
 * Only dialect knowledge: which key holds what, per tool kind.
 */
export function toolCallFacts(
  name: string,
  args: JsonObject | undefined,
  result: ToolCallResult | undefined,
  fromStart?: ToolCallFacts,
  windows = false,
): ToolCallFacts {
  const nameKey = toolNameKey(name);
  const known = KIND_BY_NAME.get(nameKey);
  // A server's tool named with its server (`mcp__github__create_issue`): an MCP call, its arguments the tool's own.
  const served = known === undefined ? servedName(name) : undefined;
  const kind = known ?? (served !== undefined ? 'mcp' : 'other');
  const facts: ToolCallFacts = { kind, argPaths: [], resultPaths: [] };
  // A tool of a name not known that is given a command may run it: `--deny-tool shell` counts it (its paths are still checked).
  if (kind === 'other' && ((args !== undefined && givesCommand(args)) || LOADS_COMMANDS.has(nameKey))) facts.mayRunCommand = true;
  // No args of its own: those its start named.
  if (args === undefined && fromStart !== undefined) addOtherFacts(facts, fromStart);
  if (args !== undefined) {
    // A shell's `directory` or `dir` is where it runs, as its `workingDirectory` is: no path it touches (see below).
    pushPathKeys(facts.argPaths, kind === 'shell' ? withoutKeys(args, SHELL_DIRECTORY_KEYS) : args);
    pushMoveKeys(facts, nameKey, args, windows);
    pushChangeListPaths(facts.argPaths, args);
    // `paths`: a list, or one path.
    pushPaths(facts.argPaths, args.paths);
    // Cursor's `codebase_search` names the directories it searches so (a key of searches only: not the paths of another tool).
    // (A list, or one directory.)
    if (kind === 'grep' || kind === 'glob' || kind === 'ls') pushPaths(facts.argPaths, args.target_directories);
    if (WORKSPACE_READS.has(nameKey) && isObject(args) && namesNothing(args)) facts.wholeWorkspace = true;
    // An MCP call's own arguments are one level down.
    const inners = kind !== 'mcp' ? [] : served !== undefined ? [args] : mcpArguments(args, facts);
    const innerName = served !== undefined ? served.tool : (str(args, 'toolName') ?? str(args, 'tool'));
    const innerKey = innerName === undefined ? undefined : toolNameKey(innerName);
    for (const inner of inners) {
      pushPathKeys(facts.argPaths, inner);
      pushMoveKeys(facts, innerKey, inner, windows);
      pushPaths(facts.argPaths, inner.paths);
      pushChangeListPaths(facts.argPaths, inner);
      // A server's edit tool (`apply_patch`) edits the files its patch names, as the agent's own does.
      if (innerKey !== undefined && KIND_BY_NAME.get(innerKey) === 'edit') pushPatchKeys(facts, inner);
      // A server's shell (`execute_command`) runs its command; a tool of another name given one may.
      if (innerKey !== undefined && KIND_BY_NAME.get(innerKey) === 'shell') {
        facts.mayRunCommand = true;
        facts.command = commandOf(inner);
        facts.workingDirectory ??= shellDirectory(inner);
      } else if (givesCommand(inner)) {
        facts.mayRunCommand = true;
      }
    }
    if (kind === 'edit') pushPatchKeys(facts, args);
    if (kind === 'shell') {
      facts.command = commandOf(args);
      facts.workingDirectory = shellDirectory(args);
    }
    if (previewOnly(args) || inners.some(previewOnly)) facts.dryRun = true;
    if (kind === 'glob' || kind === 'grep') pushSearchScope(facts, kind, args, true, windows);
    // A server's glob or grep searches as the agent's own does (its pattern is not the call's own: the record names the
    // server's tool).
    const innerKind = innerKey === undefined ? undefined : KIND_BY_NAME.get(innerKey);
    if (innerKind === 'glob' || innerKind === 'grep') for (const inner of inners) pushSearchScope(facts, innerKind, inner, false, windows);
    facts.url = str(args, 'url');
    if (kind === 'mcp' && served === undefined) {
      facts.mcpServer = str(args, 'providerIdentifier') ?? str(args, 'name') ?? str(args, 'server');
      facts.mcpTool = str(args, 'toolName') ?? str(args, 'tool');
    }
  }
  if (served !== undefined) {
    facts.mcpServer = served.server;
    facts.mcpTool = served.tool;
  }
  const body = result?.body;
  if (result !== undefined && isObject(body)) {
    for (const key of RESULT_PATH_KEYS) pushPath(facts.resultPaths, body[key]);
    if (kind === 'shell') {
      facts.command ??= str(body, 'command') ?? commandWords(body.command);
      facts.workingDirectory ??= str(body, 'workingDirectory') || undefined;
      facts.exitCode = num(body, 'exitCode');
      facts.signal = str(body, 'signal') || undefined;
      facts.executionMs = num(body, 'executionTime');
    } else if (kind === 'read') {
      facts.linesRead = num(body, 'totalLines');
      facts.charsRead = num(body, 'totalChars');
      facts.bytesRead = num(body, 'fileSize');
    } else if (kind === 'write') {
      facts.linesWritten = num(body, 'linesCreated');
      facts.bytesWritten = num(body, 'fileSize');
    } else if (kind === 'edit') {
      facts.linesAdded = num(body, 'linesAdded');
      facts.linesRemoved = num(body, 'linesRemoved');
    }
  }
  if (result !== undefined && result.status !== 'success') facts.reason = reasonOf(body);
  if (facts.argPaths.length > 0 || facts.resultPaths.length > 0) facts.access = ACCESS_BY_KIND[kind];
  facts.path = facts.argPaths[0] ?? facts.resultPaths[0];
  return facts;
}

/**
 * Tools that may run commands whatever they are given: Claude Code's `Skill`
 * and `SlashCommand` load a file (a skill, a command) whose shell lines
 * (`!` and a command in backquotes) run as it loads, no call of the agent's
 * shell in the stream.
 */
const LOADS_COMMANDS: ReadonlySet<string> = new Set(['skill', 'slashcommand']);

/**
 * The server and tool of an MCP tool named with its server, as Claude Code
 * names them: `mcp__github__create_issue` is `create_issue` of `github`;
 * undefined for other names.
 */
function servedName(name: string): { server: string; tool: string } | undefined {
  const m = SERVED_NAME.exec(name);
  return m === null ? undefined : { server: m[1]!, tool: m[2]! };
}

const SERVED_NAME = /^mcp__(.+?)__(.+)$/s;

/**
 * Adds to `facts` the argument paths `more` (of another event of the same
 * call: a call started again with other arguments, or completed with other
 * ones than it started with): every path a call was given counts.
 */
export function addArgPaths(facts: ToolCallFacts, more: readonly string[]): void {
  for (const p of more) pushPath(facts.argPaths, p);
  if (facts.argPaths.length > 0) facts.access ??= ACCESS_BY_KIND[facts.kind];
  facts.path ??= facts.argPaths[0];
}

/**
 * Adds to `facts` what `other` (the facts of another event of the same call)
 * says and `facts` does not: its argument paths (see {@link addArgPaths})
 * and the grep globs it names, and its command, working directory,
 * pattern, URL and MCP server and tool where `facts` has none (a call
 * completed with empty args keeps the command it started with).
 */
export function addOtherFacts(facts: ToolCallFacts, other: ToolCallFacts): void {
  addArgPaths(facts, other.argPaths);
  for (const path of other.movedFrom ?? []) pushPath((facts.movedFrom ??= []), path);
  if (other.moves) facts.moves = true;
  if (other.copies) facts.copies = true;
  if (other.wholeWorkspace && facts.argPaths.length === 0) facts.wholeWorkspace = true;
  if (other.mayRunCommand) facts.mayRunCommand = true;
  if (other.dryRun) facts.dryRun = true;
  if (other.searchFilters !== undefined) facts.searchFilters = [...new Set([...(facts.searchFilters ?? []), ...other.searchFilters])];
  if (other.searchFiltersCut) facts.searchFiltersCut = true;
  if (other.searchFiltersUnread) facts.searchFiltersUnread = true;
  if (other.searchStarsCut) facts.searchStarsCut = true;
  if (other.argsUnread) facts.argsUnread = true;
  facts.command ??= other.command;
  facts.workingDirectory ??= other.workingDirectory;
  facts.pattern ??= other.pattern;
  facts.url ??= other.url;
  facts.mcpServer ??= other.mcpServer;
  facts.mcpTool ??= other.mcpTool;
}

/** Times a `tool_call` event carries, in milliseconds since the epoch. */
export interface ToolCallTimes {
  /** `startedAtMs` beside the tool. */
  startedAtMs?: number;
  /** `completedAtMs` beside the tool. */
  completedAtMs?: number;
  /** The event's own `timestamp_ms`. */
  eventMs?: number;
}

/** The times of a `tool_call` event (see {@link ToolCallTimes}). */
export function toolCallTimes(e: unknown): ToolCallTimes {
  const toolCall = obj(e, 'tool_call');
  return { startedAtMs: num(toolCall, 'startedAtMs'), completedAtMs: num(toolCall, 'completedAtMs'), eventMs: num(e, 'timestamp_ms') };
}
