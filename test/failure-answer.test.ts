// The mapping from a failed handler to its answer (runtime/pipeline/failure-answer.ts), rule by rule:
// text, metering (a refusal is not metered), outcome label and log line.
import { describe, expect, it } from 'vitest';
import { HandlerNotImplementedError } from '../runtime/handler-api/stub.ts';
import { ArgumentRefusal, ToolError } from '../runtime/handler-api/tool-error.ts';
import { UpstreamError } from '../runtime/handler-api/upstream-types.ts';
import { failureAnswer, type FailureFacts } from '../runtime/pipeline/failure-answer.ts';

const none: FailureFacts = { upstreamRequests: 0, upstreamCode: () => undefined };
const authIsRejected: FailureFacts = {
  upstreamRequests: 1,
  upstreamCode: (kind) => (kind === 'auth' ? 'key_rejected' : undefined),
};

describe('failureAnswer', () => {
  it('a handler refusing its arguments before any upstream request is a refusal (not metered), with its code', () => {
    expect(failureAnswer(new ArgumentRefusal('quote_in_filter', { field: 'name' }), none)).toEqual({
      kind: 'refusal',
      code: 'quote_in_filter',
      params: { field: 'name' },
      detail: 'refused by the handler (quote_in_filter)',
    });
  });

  it('the same refusal after an upstream request is the tool text, metered', () => {
    expect(failureAnswer(new ArgumentRefusal('quote_in_filter'), { ...none, upstreamRequests: 2 })).toEqual({
      kind: 'text',
      code: 'quote_in_filter',
      params: {},
      outcome: 'quote_in_filter',
    });
  });

  it('ctx.fail is the tool text with its parameters, its code the outcome', () => {
    expect(failureAnswer(new ToolError('register_api', { status: 503 }), none)).toEqual({
      kind: 'text',
      code: 'register_api',
      params: { status: 503 },
      outcome: 'register_api',
    });
  });

  it('an upstream failure the spec gives a text is that text, with the upstream status', () => {
    expect(failureAnswer(new UpstreamError('auth', 'HTTP 401', { status: 401 }), authIsRejected)).toEqual({
      kind: 'text',
      code: 'key_rejected',
      params: { status: 401 },
      outcome: 'key_rejected',
    });
  });

  it('without an HTTP status (timeout, network) the gateway stands in for the upstream: 502', () => {
    const facts: FailureFacts = { upstreamRequests: 1, upstreamCode: () => 'upstream_unavailable' };
    expect(failureAnswer(new UpstreamError('timeout', 'deadline passed'), facts)).toMatchObject({
      kind: 'text',
      code: 'upstream_unavailable',
      params: { status: 502 },
    });
  });

  it('an upstream failure without a text is the generic text, logged as a warning with its kind and status', () => {
    expect(failureAnswer(new UpstreamError('server', 'HTTP 500', { status: 500 }), authIsRejected)).toEqual({
      kind: 'generic',
      outcome: 'upstream_server',
      log: {
        level: 'warn',
        message: 'upstream failure without a specific text',
        fields: { kind: 'server', status: 500 },
      },
    });
  });

  it('a generated stub is the generic text, logged as an error', () => {
    expect(failureAnswer(new HandlerNotImplementedError('books', 'list_files'), none)).toEqual({
      kind: 'generic',
      outcome: 'not_implemented',
      log: { level: 'error', message: 'handler is a generated stub', fields: {} },
    });
  });

  it("any other Error is the generic text: its own words go to the operator's log, never into the answer", () => {
    const answer = failureAnswer(new TypeError('the upstream schema has no material cost total'), none);
    expect(answer).toEqual({
      kind: 'generic',
      outcome: 'handler_error',
      log: {
        level: 'error',
        message: 'handler failed',
        fields: { err: { message: 'the upstream schema has no material cost total', name: 'TypeError' } },
      },
    });
    expect(failureAnswer('a string thrown', none)).toMatchObject({ kind: 'generic', outcome: 'handler_error' });
  });
});
