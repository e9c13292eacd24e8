// How a tool call that threw is answered: a pure function from the failure to its text, whether the
// call is metered, its outcome (metric label and log field) and the log line it needs. The pipeline
// acts on the verdict; the rules are tested one by one (test/failure-answer.test.ts), like the HTTP
// checks (transport/checks.ts).
import type { ErrorParams } from '../handler-api/tool-error.ts';
import { ArgumentRefusal, ToolError } from '../handler-api/tool-error.ts';
import { HandlerNotImplementedError } from '../handler-api/stub.ts';
import { UpstreamError, type UpstreamFailureKind } from '../handler-api/upstream-types.ts';

/** What the verdict needs besides the failure: plain facts of the call. */
export interface FailureFacts {
  /** Upstream requests the handler made before it failed. */
  readonly upstreamRequests: number;
  /** The tool's code for an upstream failure kind its spec declares (`upstream: [auth]`), if any. */
  readonly upstreamCode: (kind: UpstreamFailureKind) => string | undefined;
}

export type FailureAnswer =
  /** The handler refused its arguments before any upstream request: a refusal, not metered. */
  | { readonly kind: 'refusal'; readonly code: string; readonly params: ErrorParams; readonly detail: string }
  /** A spec text of the tool (its own code, or the one its spec gives this upstream failure). Metered. */
  | { readonly kind: 'text'; readonly code: string; readonly params: ErrorParams; readonly outcome: string }
  /** Anything else: the platform's generic text, metered, and logged (never with the failure's words as the answer). */
  | { readonly kind: 'generic'; readonly outcome: string; readonly log: FailureLog };

/** The log line of a failure answered with the generic text. */
export interface FailureLog {
  readonly level: 'warn' | 'error';
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

export function failureAnswer(error: unknown, facts: FailureFacts): FailureAnswer {
  if (error instanceof ArgumentRefusal && facts.upstreamRequests === 0) {
    return {
      kind: 'refusal',
      code: error.code,
      params: error.params,
      detail: `refused by the handler (${error.code})`,
    };
  }
  if (error instanceof ToolError) return { kind: 'text', code: error.code, params: error.params, outcome: error.code };
  if (error instanceof UpstreamError) {
    const code = facts.upstreamCode(error.kind);
    // Without an HTTP status (timeout, network) the gateway stands in for the upstream: 502.
    if (code) return { kind: 'text', code, params: { status: error.status ?? 502 }, outcome: code };
    return {
      kind: 'generic',
      outcome: `upstream_${error.kind}`,
      log: {
        level: 'warn',
        message: 'upstream failure without a specific text',
        fields: { kind: error.kind, status: error.status },
      },
    };
  }
  if (error instanceof HandlerNotImplementedError)
    return {
      kind: 'generic',
      outcome: 'not_implemented',
      log: { level: 'error', message: 'handler is a generated stub', fields: {} },
    };
  return {
    kind: 'generic',
    outcome: 'handler_error',
    log: {
      level: 'error',
      message: 'handler failed',
      fields: { err: { message: (error as Error)?.message, name: (error as Error)?.name } },
    },
  };
}
