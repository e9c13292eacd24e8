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

/** A tools/call answered as an event stream once its first progress notification goes out. */
export interface ProgressStream {
  readonly progress: CallProgress;
  readonly started: boolean;
  /** Writes the result (or the error) as the stream's last event and ends it. */
  end(reply: McpReply): number;
}

/**
 * The progress of a tools/call whose client sent `_meta.progressToken` and accepts an event stream
 * (MCP streamable HTTP); undefined otherwise, and the answer stays one JSON body. The stream opens
 * only when the first notification is sent: a call that finishes first answers plain JSON.
 */
export function progressStream(
  res: ServerResponse,
  params: Record<string, unknown>,
  accept: string | undefined,
): ProgressStream | undefined {
  const meta = params._meta;
  const token = meta && typeof meta === 'object' ? (meta as Record<string, unknown>).progressToken : undefined;
  if ((typeof token !== 'string' && typeof token !== 'number') || !accept?.includes('text/event-stream'))
    return undefined;
  let started = false;
  const event = (data: string | Buffer) => {
    if (!res.writableEnded) res.write(`event: message\ndata: ${data}\n\n`);
  };
  const progress = new CallProgress(token, (notification) => {
    if (!started) {
      started = true;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
    }
    event(notification);
  });
  return {
    progress,
    get started() {
      return started;
    },
    end(reply) {
      event(reply);
      res.end();
      return 200;
    },
  };
}

/**
 * The tools/call requests in flight on this process, by caller token and JSON-RPC id, so that a
 * `notifications/cancelled` naming one aborts it (its upstream requests, its slot, its body budget).
 */
export class InFlightCalls {
  readonly #calls = new Map<string, { abort(): void }>();

  track(tokenId: string, id: string | number, call: { abort(): void }): () => void {
    const key = `${tokenId}\u0000${typeof id}:${id}`;
    this.#calls.set(key, call);
    return () => {
      if (this.#calls.get(key) === call) this.#calls.delete(key);
    };
  }

  cancel(tokenId: string, params: unknown): void {
    const id = params && typeof params === 'object' ? (params as Record<string, unknown>).requestId : undefined;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    this.#calls.get(`${tokenId}\u0000${typeof id}:${id}`)?.abort();
  }
}
