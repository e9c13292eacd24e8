// The write guardrails of `write: true` tools (DECISIONS §3, §11, §17), once for every connector:
// preview unless `confirm` is the boolean true, a write is sent once and never retried, the
// handler's own client may only read, and identical confirmed calls within the connector's dedup
// window share the first call's outcome across replicas (the platform store's `write_dedup`).
import { createHash } from 'node:crypto';
import type { WriteGuard, WriteRequest } from '../handler-api/tool-context.ts';
import { ArgumentRefusal, ToolError, type ErrorParams } from '../handler-api/tool-error.ts';
import { UpstreamError, type UpstreamClient, type UpstreamFailureKind } from '../handler-api/upstream-types.ts';
import type { Repositories } from '../store/store.ts';

/** `confirm` applies only as the boolean true: "true", 1 or anything else is a preview. */
export function isConfirmed(args: Readonly<Record<string, unknown>>): boolean {
  return args.confirm === true;
}

/** A read tool's guard: it cannot write. */
export const noWrites: WriteGuard = {
  confirmed: false,
  send: () => Promise.reject(new Error('a read tool cannot write')),
};

/**
 * The guard of one write-tool call; `upstream` is the unrestricted client (counted by the pipeline).
 * `expectPreview`: the digest of the preview the person accepted (runtime/pipeline/person-confirm.ts);
 * a write that differs from it is not sent.
 */
export function createWriteGuard(
  action: string,
  confirmed: boolean,
  upstream: UpstreamClient,
  expectPreview?: string,
): WriteGuard {
  let sent = false;
  return {
    confirmed,
    async send<T>(
      request: WriteRequest,
      options: {
        readonly summary: string;
        readonly confirmHint: string;
        readonly headers?: Readonly<Record<string, string>>;
      },
    ) {
      if (!confirmed) {
        return {
          preview: {
            preview: {
              action,
              summary: options.summary,
              request: { method: request.method, path: request.path, body: request.body },
              confirmHint: options.confirmHint,
            },
          },
        };
      }
      if (expectPreview !== undefined && previewDigest({ action, request }) !== expectPreview)
        throw new ToolError('confirm_preview_changed', {});
      // One write per call: a handler cannot loop a write.
      if (sent) throw new Error('a write tool sends one write per call');
      sent = true;
      const response = await upstream.request<T>({
        method: request.method,
        path: request.path,
        json: request.body,
        write: true,
        ...(options.headers ? { headers: options.headers } : {}),
      });
      return { response };
    },
  };
}

/** The client a write tool's handler gets as `ctx.upstream`: reads only; writes go through `ctx.write`. */
export function readOnlyClient(client: UpstreamClient): UpstreamClient {
  return {
    baseUrl: client.baseUrl,
    request(request) {
      if (request.method !== 'GET')
        return Promise.reject(new Error(`a write tool writes only through ctx.write (${request.method} refused)`));
      return client.request(request);
    },
  };
}

/** JSON with object keys sorted at every depth: equal arguments, equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort())
        Object.defineProperty(sorted, k, {
          value: (v as Record<string, unknown>)[k],
          enumerable: true,
          configurable: true,
          writable: true,
        });
      return sorted;
    }
    return v;
  });
}

/** The digest of what a write sends (action, method, path, body): what the person accepted. */
export function previewDigest(preview: {
  readonly action: string;
  readonly request: { readonly method: string; readonly path: string; readonly body?: unknown };
}): string {
  const { method, path, body } = preview.request;
  return createHash('sha256')
    .update(canonicalJson([preview.action, method, path, body ?? null]))
    .digest('base64url');
}

/** The digest of a call's arguments (canonical JSON: key order does not matter). */
export function argumentsDigest(args: Readonly<Record<string, unknown>>): string {
  return createHash('sha256').update(canonicalJson(args)).digest('base64url');
}

/** DECISIONS §17: account + instance + tool + canonical arguments, hashed. */
export function writeKey(
  accountId: string,
  instanceId: string,
  tool: string,
  args: Readonly<Record<string, unknown>>,
): string {
  return createHash('sha256')
    .update(JSON.stringify([accountId, instanceId, tool, canonicalJson(args)]))
    .digest('hex');
}

/** A write's outcome as stored: the result, or the failure the pipeline renders again. */
type Outcome =
  | { readonly result: unknown }
  | { readonly tool: { readonly code: string; readonly params: ErrorParams; readonly refusal: boolean } }
  | { readonly upstream: { readonly kind: UpstreamFailureKind; readonly status: number | null } }
  | { readonly failed: true };

function outcomeOf(error: unknown): { outcome: Outcome; reusable: boolean } {
  if (error instanceof ToolError) {
    // A spec text raised by the handler answers a definite upstream refusal (4xx) or an argument
    // check: nothing was written, so the next identical call may try again.
    return {
      outcome: { tool: { code: error.code, params: error.params, refusal: error instanceof ArgumentRefusal } },
      reusable: false,
    };
  }
  if (error instanceof UpstreamError) {
    const definite = error.status !== undefined && error.status >= 400 && error.status < 500;
    return { outcome: { upstream: { kind: error.kind, status: error.status ?? null } }, reusable: !definite };
  }
  // Unknown: the write may have happened, so it is not repeated within the window.
  return { outcome: { failed: true }, reusable: true };
}

function replay(outcome: Outcome): unknown {
  if ('result' in outcome) return outcome.result;
  if ('tool' in outcome)
    throw outcome.tool.refusal
      ? new ArgumentRefusal(outcome.tool.code, outcome.tool.params)
      : new ToolError(outcome.tool.code, outcome.tool.params);
  if ('upstream' in outcome)
    throw new UpstreamError(
      outcome.upstream.kind,
      'the first identical write failed',
      outcome.upstream.status === null ? {} : { status: outcome.upstream.status },
    );
  throw new Error('the first identical write failed');
}

export interface WriteDedupOptions {
  readonly store: Pick<Repositories, 'writes'>;
  /** Epoch ms. */
  readonly now: () => number;
  /** How often a waiting caller reads the stored outcome. */
  readonly pollMs: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Runs a confirmed write at most once per key and window: in this process identical calls share
 * one promise; across processes the store's claim decides, and the others wait for the stored
 * outcome (until it appears, the claim expires, or the call is aborted).
 */
export class WriteDedup {
  readonly #o: WriteDedupOptions;
  readonly #inFlight = new Map<string, Promise<Outcome>>();
  constructor(options: WriteDedupOptions) {
    this.#o = options;
  }

  async run(key: string, windowMs: number, signal: AbortSignal, write: () => Promise<unknown>): Promise<unknown> {
    let shared = this.#inFlight.get(key);
    if (!shared) {
      shared = this.#once(key, windowMs, signal, write).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, shared);
    }
    return replay(await shared);
  }

  async #once(key: string, windowMs: number, signal: AbortSignal, write: () => Promise<unknown>): Promise<Outcome> {
    const sleep = this.#o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const started = this.#o.now();
    for (;;) {
      const now = this.#o.now();
      const claim = await this.#o.store.writes.claimWrite(key, now, now - windowMs);
      if (claim.claimed) {
        let stored: { outcome: Outcome; reusable: boolean };
        try {
          stored = { outcome: { result: await write() }, reusable: true };
        } catch (error) {
          stored = outcomeOf(error);
        }
        await this.#o.store.writes.finishWrite(key, JSON.stringify(stored.outcome), stored.reusable);
        return stored.outcome;
      }
      if (claim.outcome !== null) return JSON.parse(claim.outcome) as Outcome;
      // Another caller is writing: wait for its outcome.
      for (;;) {
        if (signal.aborted || this.#o.now() - started > windowMs) return { failed: true };
        await sleep(this.#o.pollMs);
        const outcome = await this.#o.store.writes.writeOutcome(key);
        if (outcome === undefined) break; // the claim is gone (taken over after expiry): claim again
        if (outcome !== null) return JSON.parse(outcome) as Outcome;
      }
    }
  }
}
