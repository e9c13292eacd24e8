// One upstream HTTP exchange on undici's dispatcher API (`Dispatcher.dispatch` with a handler of
// our own), answering what undici's `request()` answers: the status, the headers and the body (read
// once, whole and capped: ResponseBody). Why not `request()`: behind it, ~7 % of everything a call
// allocates outlived a young-generation collection (measured with V8's --trace-gc-nvp: a node:http
// server making one upstream call per request, 40,000 requests), against ~2 % with this handler,
// the same bytes on the wire. What survives is copied and then promoted, so scavenges took ~4 ms
// instead of ~1.2 ms and the old generation filled ~5 times as fast; every major collection that
// follows marks the whole heap, which with 100,000 accounts in the snapshot is ~200 MiB.
import type { Dispatcher } from 'undici';
import { CappedBytes } from '../io/read-capped.ts';

export interface DispatchedResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The response body; destroying it aborts the exchange (the connection is not reused). */
  readonly body: ResponseBody;
}

export interface DispatchOptions {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string | undefined;
  /** Aborts the exchange, before or after the response head (the body then errors). */
  readonly signal: AbortSignal;
  /**
   * Where the signal's owner finds what to call when it aborts the signal, instead of a listener on
   * it: no EventTarget work per request (the upstream client's own per-request signal).
   */
  readonly abortHook?: AbortHook;
}

/**
 * Set by an exchange while it runs; whoever aborts the exchange's signal calls its `handleEvent`
 * right after (the object an EventTarget listener would be: no function made per request).
 */
export interface AbortHook {
  onAbort: { handleEvent(): void } | undefined;
}

/** The request target of an absolute URL: path and query, as undici's `request(url)` sends it. */
function pathOf(url: { readonly href: string; readonly origin: string }): string {
  if (url.href.startsWith(url.origin) && !url.href.includes('#')) {
    const rest = url.href.slice(url.origin.length);
    return rest === '' ? '/' : rest;
  }
  const parsed = new URL(url.href);
  return `${parsed.pathname}${parsed.search}`;
}

/** Why an exchange ended when its signal carries no reason of its own. */
const aborted = (reason?: unknown): Error =>
  reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');

type Controller = Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestStart']>>[0];

/** Bytes held for a body nobody reads yet (one waiting for the body budget) before the exchange pauses. */
const UNREAD_HIGH_WATER = 16 * 1024;

interface Reader {
  readonly gathered: CappedBytes;
  readonly overflow: (bytes: number) => Error;
  readonly resolve: (bytes: Buffer) => void;
  readonly reject: (error: Error) => void;
}

/**
 * A response body read once, whole and capped: the chunks undici hands over are kept (at most
 * UNREAD_HIGH_WATER before the exchange pauses) until `read` collects them. Not a stream: nobody
 * streamed the Readable each response had, and its events and `nextTick` hops were work on every
 * call (docs/decisions/upstream-calls.md, 'A response body is collected, not streamed').
 */
export class ResponseBody {
  readonly #controller: Controller;
  readonly #ended: { finish(): void };
  /** Chunks that came before anyone read: handed to the reader when it comes. */
  #held: Buffer[] = [];
  #heldBytes = 0;
  #complete = false;
  #paused = false;
  #error: Error | undefined;
  #destroyed = false;
  #reader: Reader | undefined;
  #read = false;

  /** `ended` is told once the exchange is over (complete, failed or destroyed). */
  constructor(controller: Controller, ended: { finish(): void }) {
    this.#controller = controller;
    this.#ended = ended;
  }

  /**
   * The whole body, at most `limit` bytes: beyond it the exchange is aborted (the connection is not
   * read on) and the promise rejects with `overflow(bytes)`. `expected`, a declared content-length
   * within the limit, lets the bytes be copied into one buffer of that size as they come.
   */
  /**
   * The whole body when all of it has come already (undici hands a small answer's head, data and end
   * over in one go): the bytes with no promise, or the overflow thrown. Undefined while more is to
   * come: the body is left unread for `read`.
   */
  readNow(limit: number, overflow: (bytes: number) => Error, expected?: number): Buffer | undefined {
    if (!this.#complete || this.#read || this.#error || this.#destroyed) return undefined;
    this.#read = true;
    const gathered = new CappedBytes(limit, expected);
    const held = this.#held;
    this.#held = [];
    this.#heldBytes = 0;
    for (const chunk of held) {
      const over = gathered.add(chunk);
      if (over !== undefined) throw overflow(over);
    }
    return gathered.bytes();
  }

  read(limit: number, overflow: (bytes: number) => Error, expected?: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (this.#read) {
        reject(new Error('the body was read already'));
        return;
      }
      this.#read = true;
      if (this.#error || this.#destroyed) {
        reject(this.#error ?? new Error('the body was destroyed before it was read'));
        return;
      }
      const reader: Reader = { gathered: new CappedBytes(limit, expected), overflow, resolve, reject };
      const held = this.#held;
      this.#held = [];
      this.#heldBytes = 0;
      this.#reader = reader;
      for (const chunk of held) if (!this.#take(chunk)) return;
      if (this.#complete) this.#settle();
      else if (this.#paused) {
        this.#paused = false;
        this.#controller.resume();
      }
    });
  }

  /** Ends the body early: the exchange is aborted (undici drops the connection) and a reader is told `error`. */
  destroy(error?: Error): void {
    if (this.#destroyed || this.#complete) return;
    this.#destroyed = true;
    this.#error ??= error;
    this.#held = [];
    this.#ended.finish();
    this.#controller.abort(aborted(error));
    const reader = this.#reader;
    this.#reader = undefined;
    reader?.reject(error ?? new Error('the body was destroyed'));
  }

  /** undici's `onResponseData`. */
  data(chunk: Buffer): void {
    if (this.#destroyed) return;
    if (this.#reader) {
      this.#take(chunk);
      return;
    }
    this.#held.push(chunk);
    this.#heldBytes += chunk.length;
    if (this.#heldBytes > UNREAD_HIGH_WATER && !this.#paused) {
      this.#paused = true;
      this.#controller.pause();
    }
  }

  /** undici's `onResponseEnd`. */
  end(): void {
    if (this.#destroyed) return;
    this.#complete = true;
    this.#ended.finish();
    if (this.#reader) this.#settle();
  }

  /** undici's `onResponseError` after the head (or the call's signal): the reader, now or later, is told. */
  fail(error: Error): void {
    if (this.#destroyed || this.#complete) return;
    this.#destroyed = true;
    this.#error = error;
    this.#held = [];
    this.#ended.finish();
    const reader = this.#reader;
    this.#reader = undefined;
    reader?.reject(error);
  }

  /** Adds a chunk to the reader's bytes; false when the cap was passed (the body is destroyed). */
  #take(chunk: Buffer): boolean {
    const reader = this.#reader!;
    const over = reader.gathered.add(chunk);
    if (over === undefined) return true;
    this.#reader = undefined;
    this.destroy();
    reader.reject(reader.overflow(over));
    return false;
  }

  #settle(): void {
    const reader = this.#reader!;
    this.#reader = undefined;
    reader.resolve(reader.gathered.bytes());
  }
}

/**
 * One exchange: undici's handler, the abort hook's target and the head's promise in one object with
 * its methods on the prototype (no closures made per request; undici calls the handler's methods on
 * it).
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly #signal: AbortSignal;
  readonly #hook: AbortHook | undefined;
  readonly #resolve: (response: DispatchedResponse) => void;
  readonly #reject: (error: Error) => void;
  #controller: Controller | undefined;
  #body: ResponseBody | undefined;
  #done = false;

  constructor(
    signal: AbortSignal,
    hook: AbortHook | undefined,
    resolve: (response: DispatchedResponse) => void,
    reject: (error: Error) => void,
  ) {
    this.#signal = signal;
    this.#hook = hook;
    this.#resolve = resolve;
    this.#reject = reject;
    if (hook) hook.onAbort = this;
    else signal.addEventListener('abort', this, { once: true });
  }

  /** The signal aborted (its listener object, or called through the abort hook). */
  handleEvent(): void {
    const reason = aborted(this.#signal.reason);
    if (this.#body) this.#body.destroy(reason);
    else if (this.#controller) this.#controller.abort(reason);
    // Still queued behind busy connections: the caller is answered now; undici aborts the
    // request when it would start (onRequestStart sees the signal).
    else this.fail(reason);
  }

  /** The exchange is over: the abort hook or listener goes (ResponseBody's `ended`). */
  finish(): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#hook) this.#hook.onAbort = undefined;
    else this.#signal.removeEventListener('abort', this);
  }

  /** Before the head the promise rejects (a second time is a no-op); after it the body errors. */
  fail(error: Error): void {
    this.finish();
    if (this.#body) this.#body.fail(error);
    else this.#reject(error);
  }

  onRequestStart(c: Controller): void {
    this.#controller = c;
    if (this.#signal.aborted) c.abort(this.#signal.reason);
  }

  onResponseStart(c: Controller, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: the final answer follows
    const body = new ResponseBody(c, this);
    this.#body = body;
    this.#resolve({ statusCode, headers, body });
  }

  onResponseData(_c: Controller, chunk: Buffer): void {
    this.#body?.data(chunk);
  }

  onResponseEnd(): void {
    this.finish();
    this.#body?.end();
  }

  onResponseError(_c: Controller, error: Error): void {
    this.fail(error);
  }
}

/** The exchange as a promise of its head; the body follows (ResponseBody). */
export function dispatchRequest(
  dispatcher: Dispatcher,
  url: { readonly href: string; readonly origin: string },
  options: DispatchOptions,
): Promise<DispatchedResponse> {
  return new Promise((resolve, reject) => {
    const { signal } = options;
    if (signal.aborted) {
      reject(aborted(signal.reason));
      return;
    }
    const exchange = new Exchange(signal, options.abortHook, resolve, reject);
    try {
      dispatcher.dispatch(
        {
          origin: url.origin,
          path: pathOf(url),
          method: options.method as Dispatcher.HttpMethod,
          headers: options.headers,
          body: options.body ?? null,
        },
        exchange,
      );
    } catch (error) {
      exchange.fail(error as Error);
    }
  });
}
