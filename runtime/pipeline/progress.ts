// Progress of one tools/call for a client that asked for it (`_meta.progressToken`, MCP
// `notifications/progress`): what the handler reports with `ctx.progress(done, total?, message?)`,
// or, for a handler that reports nothing itself, each upstream request answered. Notifications go
// out at most once per interval and only when the progress grew (the protocol requires it to
// increase); the transport decides how they travel (an event stream before the result).

/** Where the notifications go: the JSON text of one JSON-RPC notification each. */
export type ProgressSend = (notification: string) => void;

/** Default least time between two notifications of one call. */
export const PROGRESS_INTERVAL_MS = 100;

export class CallProgress {
  readonly #token: string | number;
  readonly #send: ProgressSend;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #sentAt = Number.NEGATIVE_INFINITY;
  #last = 0;
  #explicit = false;
  /** Notifications sent (tests, logs). */
  sent = 0;

  constructor(token: string | number, send: ProgressSend, intervalMs = PROGRESS_INTERVAL_MS, now = Date.now) {
    this.#token = token;
    this.#send = send;
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  /** The handler's own report: from then on, upstream requests no longer count as progress. */
  report(done: number, total?: number, message?: string): void {
    this.#explicit = true;
    this.#emit(done, total, message);
  }

  /** An upstream request answered (the `n`th of the call): progress for a handler that reports nothing. */
  upstreamAnswered(n: number): void {
    if (!this.#explicit) this.#emit(n, undefined, `upstream request ${n} answered`);
  }

  #emit(done: number, total: number | undefined, message: string | undefined): void {
    if (!Number.isFinite(done) || done <= this.#last) return;
    const at = this.#now();
    if (at - this.#sentAt < this.#intervalMs) return;
    this.#sentAt = at;
    this.#last = done;
    this.sent++;
    const params: Record<string, unknown> = { progressToken: this.#token, progress: done };
    if (total !== undefined && Number.isFinite(total) && total >= done) params.total = total;
    if (message) params.message = message.slice(0, 200);
    this.#send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params }));
  }
}
