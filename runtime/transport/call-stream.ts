// How one MCP request's answer travels besides the JSON body: the signal that aborts a call when
// its client goes away or cancels it, the calls in flight that a `notifications/cancelled` names,
// and the event stream of a tools/call whose client asked for progress
// (docs/decisions/progress-and-cancellation.md).
import type { ServerResponse } from 'node:http';
import type { McpReply } from '../mcp/methods.ts';
import { CallProgress } from '../pipeline/progress.ts';

/**
 * The client going away aborts a call in progress: the signal (and the listener) is made only if a
 * method asks for it; `release` drops the listener once the answer is ready.
 */
export function abortOnClose(res: ServerResponse): {
  signal: () => AbortSignal;
  release: () => void;
  abort: () => void;
} {
  let controller: AbortController | undefined;
  const onClose = () => {
    if (!res.writableFinished) controller!.abort();
  };
  const signal = () => {
    if (!controller) {
      controller = new AbortController();
      res.once('close', onClose);
    }
    return controller.signal;
  };
  return {
    signal,
    abort: () => {
      if (!signal().aborted) controller!.abort();
    },
    release: () => {
      if (controller) res.off('close', onClose);
    },
  };
}

/**
 * A tools/call answered as an event stream once something goes out before its result: a progress
 * notification, or a request of the server to the client (`elicitation/create`).
 */
export interface ProgressStream {
  /** Present when the client sent `_meta.progressToken`. */
  readonly progress: CallProgress | undefined;
  readonly started: boolean;
  /**
   * Sends a JSON-RPC request to the client on the stream and waits for its answer, which the client
   * POSTs as a JSON-RPC response (`answers.settle`); rejects when `signal` aborts first.
   */
  request(method: string, params: unknown, signal: AbortSignal): Promise<unknown>;
  /** Writes the result (or the error) as the stream's last event and ends it. */
  end(reply: McpReply): number;
}

/**
 * The event stream of a tools/call whose client accepts one (MCP streamable HTTP); undefined
 * otherwise, and the answer stays one JSON body. The stream opens only when the first event is
 * sent: a call that finishes first answers plain JSON.
 */
/** Whether a request's params carry `_meta.progressToken` (a string or a number). */
export function hasProgressToken(params: Record<string, unknown>): boolean {
  const meta = params._meta;
  const token = meta && typeof meta === 'object' ? (meta as Record<string, unknown>).progressToken : undefined;
  return typeof token === 'string' || typeof token === 'number';
}

export function progressStream(
  res: ServerResponse,
  params: Record<string, unknown>,
  accept: string | undefined,
  answers: ClientAnswers,
  caller: string,
): ProgressStream | undefined {
  if (!accept?.includes('text/event-stream')) return undefined;
  const meta = params._meta;
  const token = meta && typeof meta === 'object' ? (meta as Record<string, unknown>).progressToken : undefined;
  let started = false;
  const event = (data: string | Buffer) => {
    if (!started) {
      started = true;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
    }
    if (!res.writableEnded) res.write(`event: message\ndata: ${data}\n\n`);
  };
  const progress = typeof token === 'string' || typeof token === 'number' ? new CallProgress(token, event) : undefined;
  return {
    progress,
    get started() {
      return started;
    },
    request(method, requestParams, signal) {
      const { id, answer } = answers.expect(caller, signal);
      event(JSON.stringify({ jsonrpc: '2.0', id, method, params: requestParams }));
      return answer;
    },
    end(reply) {
      event(reply);
      res.end();
      return 200;
    },
  };
}

/**
 * Requests this process sent to clients on a call's stream, waiting for the JSON-RPC response the
 * client POSTs (MCP streamable HTTP). Keyed by the caller's token and an id only this process makes,
 * so one caller cannot answer another's question.
 */
export class ClientAnswers {
  readonly #waiting = new Map<string, (value: unknown) => void>();
  #seq = 0;

  expect(caller: string, signal: AbortSignal): { id: string; answer: Promise<unknown> } {
    const id = `gw-${process.pid}-${++this.#seq}`;
    const key = `${caller}\u0000${id}`;
    const answer = new Promise<unknown>((resolve, reject) => {
      const abort = () => {
        this.#waiting.delete(key);
        reject(signal.reason ?? new Error('aborted'));
      };
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
      this.#waiting.set(key, (value) => {
        signal.removeEventListener('abort', abort);
        this.#waiting.delete(key);
        resolve(value);
      });
    });
    return { id, answer };
  }

  /** A JSON-RPC response a client POSTed: settles the question it answers (an error answers undefined). */
  settle(caller: string, message: unknown): void {
    if (!message || typeof message !== 'object') return;
    const { id, result } = message as { id?: unknown; result?: unknown };
    if (typeof id !== 'string') return;
    this.#waiting.get(`${caller}\u0000${id}`)?.(result);
  }
}

/**
 * The tools/call requests in flight on this process, by caller token and JSON-RPC id, so that a
 * `notifications/cancelled` naming one aborts it (its upstream requests, its slot, its body budget).
 */
export class InFlightCalls {
  /** By token id, then by JSON-RPC id (a Map keeps 1 and "1" apart, as JSON-RPC does): no key is built per call. */
  readonly #calls = new Map<string, Map<string | number, { abort(): void }>>();

  track(tokenId: string, id: string | number, call: { abort(): void }): void {
    let calls = this.#calls.get(tokenId);
    if (!calls) {
      calls = new Map();
      this.#calls.set(tokenId, calls);
    }
    calls.set(id, call);
  }

  /** Forgets a call that answered (unless a later call of the same caller reused its id). */
  untrack(tokenId: string, id: string | number, call: { abort(): void }): void {
    const calls = this.#calls.get(tokenId);
    if (!calls || calls.get(id) !== call) return;
    calls.delete(id);
    if (calls.size === 0) this.#calls.delete(tokenId);
  }

  cancel(tokenId: string, params: unknown): void {
    const id = params && typeof params === 'object' ? (params as Record<string, unknown>).requestId : undefined;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    this.#calls.get(tokenId)?.get(id)?.abort();
  }
}

/**
 * The callers (API tokens) whose client declared the elicitation capability at its last 2025
 * `initialize` on this process: the stateless 2025 revisions send capabilities only there. Bounded:
 * the oldest is forgotten first (a forgotten client keeps the `confirm: true` flow).
 */
export class ElicitingCallers {
  readonly #callers = new Set<string>();
  readonly #max: number;

  constructor(max = 10_000) {
    this.#max = max;
  }

  initialized(caller: string, params: Record<string, unknown>): void {
    const capabilities = params.capabilities;
    const elicitation =
      capabilities && typeof capabilities === 'object'
        ? (capabilities as Record<string, unknown>).elicitation
        : undefined;
    this.#callers.delete(caller);
    if (!elicitation || typeof elicitation !== 'object') return;
    // Form mode: `elicitation: {}` (2025-06-18) or `{ form: {} }` (2025-11-25); URL mode alone cannot confirm.
    if (Object.keys(elicitation).length > 0 && !('form' in elicitation)) return;
    this.#callers.add(caller);
    if (this.#callers.size > this.#max) this.#callers.delete(this.#callers.values().next().value!);
  }

  has(caller: string): boolean {
    return this.#callers.has(caller);
  }
}
