// The data a tools/call passes along the pipeline (the request as the MCP layer hands it over, the
// plan the run step takes, the log fields of every line) and the result envelopes it answers with.
import type { ToolDescriptor } from '../handler-api/descriptor-types.ts';
import type { Credential } from '../handler-api/tool-context.ts';
import type { Endpoint } from '../gateway-context.ts';
import type { Identity } from '../store/state.ts';
import type { Reservation } from '../metering/usage.ts';
import type { Redactor } from '../redact.ts';
import type { TraceContext } from '../trace-context.ts';
import type { ToolSelection } from '../tool-selection.ts';
import type { CallProgress } from './progress.ts';
import type { PersonConfirmRequest } from './person-confirm.ts';

export interface CallToolResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  /** MCP 2026-07-28 multi round-trip (runtime/pipeline/person-confirm.ts): the person must answer first. */
  resultType?: 'input_required';
  inputRequests?: Record<string, unknown>;
  requestState?: string;
}

/** What every log line of a call carries (never a credential or token). */
export interface CallLogFields {
  readonly reqId: string;
  readonly connector: string;
  readonly instance: string;
  readonly accountId: string;
  readonly userId: string;
  /** The API token's id (`oauth:<grant>` for OAuth); an id, never the token. */
  readonly tokenId: string;
  /** The call's W3C trace id (the caller's, or a new one), as upstream requests carry it. */
  readonly traceId: string;
  /** The gateway's span for this call. */
  readonly spanId: string;
}

/** One tools/call as the MCP layer hands it over (runtime/mcp/methods.ts): plain data. */
export interface ToolCallRequest {
  readonly endpoint: Endpoint;
  readonly identity: Identity;
  /** The tool name and arguments as the caller sent them (checked here). */
  readonly name: unknown;
  readonly rawArgs: unknown;
  readonly signal: AbortSignal;
  readonly reqId: string;
  /** The client's selection of the endpoint's tools (absent: every tool); a tool outside it is unknown. */
  readonly selection?: ToolSelection | undefined;
  /**
   * The caller's trace context (`traceContextFrom(params._meta, headers)`); without one the call starts a new trace.
   */
  readonly trace?: TraceContext | undefined;
  /** Progress notifications, when the client asked for them (`_meta.progressToken`). */
  readonly progress?: CallProgress | undefined;
  /** Whether and how the person confirms a write (runtime/pipeline/person-confirm.ts); absent: `confirm: true` does. */
  readonly personConfirm?: PersonConfirmRequest | undefined;
}

/**
 * One tools/call past its checks (steps 1–6), as the run step takes it: plain data, made once per
 * call, no closures (docs/decisions/typed-platform-contract.md).
 */
export interface CallPlan {
  readonly endpoint: Endpoint;
  readonly identity: Identity;
  readonly tool: ToolDescriptor;
  /** The validated arguments, defaults applied. */
  readonly args: Record<string, unknown>;
  readonly credential: Credential | null;
  readonly signal: AbortSignal;
  readonly fields: CallLogFields;
  readonly trace: TraceContext;
  /** The call's time, as the meter and fair use saw it. */
  readonly now: Date;
  readonly reservation: Reservation | undefined;
  readonly redactor: Redactor;
  readonly progress: CallProgress | undefined;
  readonly personConfirm?: PersonConfirmRequest | undefined;
}

/** The platform refusals whose text carries a link, each with a `<code>_no_link` variant for when none can be made. */
export type LinkedCode = 'not_subscribed' | 'no_seat' | 'not_connected' | 'connect_terms_required';

/** The connect form's check of a submitted credential (`Pipeline.checkCredential`); `text` is the spec's. */
export type CredentialVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'rejected' | 'unverified' | 'not_configured'; readonly text: string };

export type RefusalReason =
  | 'unknown_tool'
  | 'not_subscribed'
  | 'no_seat'
  | 'not_connected'
  | 'credential_missing'
  | 'credential_invalid'
  | 'credential_reconnect'
  | 'credential_refresh_failed'
  | 'terms_required'
  | 'fair_use_blocked'
  | 'invalid_arguments';
/**
 * The result with every text block scrubbed. Structured content is the same value as the first
 * text block (its JSON), so it is scrubbed, as a copy, exactly when a text block had to be.
 */
export function scrubResult(result: CallToolResult, redactor: Redactor): CallToolResult {
  let changed = false;
  const content = result.content.map((block) => {
    const text = redactor.text(block.text);
    if (text === block.text) return block;
    changed = true;
    return { ...block, text };
  });
  if (result.inputRequests) {
    // The preview shown to the person may quote what an upstream echoed.
    const inputRequests = redactor.value(result.inputRequests) as Record<string, unknown>;
    if (inputRequests !== result.inputRequests) return { ...result, content, inputRequests };
  }
  if (!changed) return result;
  const scrubbed: CallToolResult = { ...result, content };
  if (result.structuredContent)
    scrubbed.structuredContent = redactor.value(result.structuredContent) as Record<string, unknown>;
  return scrubbed;
}

export function textResult(text: string, isError: boolean): CallToolResult {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}

/**
 * The tool a log line names for a name as the caller sent it: without its instance prefix, as every
 * other line of a call names it, cut short (it is the caller's input).
 */
export function loggedToolName(name: unknown, instanceId: string): string {
  if (typeof name !== 'string') return typeof name;
  return (name.startsWith(`${instanceId}__`) ? name.slice(instanceId.length + 2) : name).slice(0, 100);
}
