// What a handler may touch: its instance, its own decrypted credential, an upstream client already
// configured for the connector (deadline, no redirects, size cap, throttle retry), its limits, a
// logger without secrets, and the clock. Never the caller's token, another instance's credential
// or the database.
import type { Logger } from 'pino';
import type { CallInput, InputRequest } from './input-requests.ts';
import type { UpstreamClient, UpstreamResponse } from './upstream-types.ts';

/**
 * A decrypted tenant credential, by the connector's credential kind. `appSecret` is the
 * integrator's application secret, a deployment setting (spec `appSecret: true`), present on every
 * call of such a connector (the runtime answers credential_missing while it is not configured).
 */
export type Credential =
  | { readonly kind: 'api_key'; readonly apiKey: string; readonly appSecret?: string }
  | { readonly kind: 'static_token'; readonly token: string; readonly appSecret?: string }
  | {
      readonly kind: 'login_company';
      readonly username: string;
      readonly password: string;
      readonly companyId: string;
      readonly appSecret?: string;
    }
  | {
      readonly kind: 'oauth2';
      readonly accessToken: string;
      readonly refreshToken?: string;
      readonly expiresAt?: number;
      readonly scope?: string;
    }
  /** Deployment-wide credential of a managed connector, as configured (may be incomplete). */
  | { readonly kind: 'managed_basic'; readonly username?: string; readonly password?: string };

/** The opt-in data layer of one connection as its handler sees it (status and first-seen records). */
export interface DataLayerStatus {
  readonly enabled: boolean;
  /** When the tenant opted in; baseline items carry this time. */
  readonly enabledAt: Date | null;
}

export interface SeenRecord {
  /** When the platform first saw the key (the opt-in time for baseline keys). */
  readonly firstSeenAt: Date;
  /** true when the key was part of the first full read after opt-in. */
  readonly baseline: boolean;
}

/**
 * A narrow platform capability bound to the call's account and endpoint instance, given only to
 * tools whose spec says `dataLayer: true`. The handler never sees the database.
 */
export interface DataLayer {
  status(): Promise<DataLayerStatus>;
  /**
   * Records the keys of one complete read of the tracked items. The first read after opt-in
   * becomes the baseline (first seen = the opt-in time); later reads record keys not seen before
   * at `at`. Returns the first-seen record of every key passed. Fails (generic text) when the
   * layer is not enabled.
   */
  recordSeen(keys: readonly string[], at: Date): Promise<Map<string, SeenRecord>>;
}

/**
 * Opaque tokens the gateway seals for a handler (continuation cursors, DECISIONS §16): authenticated
 * encryption under a key derived from the gateway's secret, bound to the call's account and endpoint
 * instance and to the handler's `binding` (for example the company and entity a cursor belongs to).
 * `open` answers undefined for a token altered in any byte, sealed for another account, instance or
 * binding, sealed with a key no longer configured, or not sealed by this gateway at all.
 */
export interface SealedTokens {
  seal(payload: string, binding: string): string;
  open(token: string, binding: string): string | undefined;
}

/**
 * A request budget shared by every call of the connector on every replica, per key: for an
 * upstream quota that is not the caller's (Dinero's 100 requests a minute per organisation and
 * client id). The rate comes from the spec's limits, so no number lives in a handler.
 */
export interface UpstreamQuota {
  /**
   * Takes one request of `key`'s budget (at most `perMinute` a minute, refilling continuously),
   * waiting up to `maxWaitMs` for one when it is spent; false when none came in time (or the call ended).
   */
  take(key: string, perMinute: number, maxWaitMs: number): Promise<boolean>;
}

/** The one request a write tool makes (or would make): what its preview shows, byte for byte. */
export interface WriteRequest {
  readonly method: 'POST' | 'PUT';
  readonly path: string;
  readonly body: Record<string, unknown>;
}

/** What a write tool answers without `confirm: true` (spec: WritePreview). */
export interface WritePreview {
  readonly preview: {
    readonly action: string;
    readonly summary: string;
    readonly request: WriteRequest;
    readonly confirmHint: string;
  };
}

/**
 * The only way a `write: true` tool writes (DECISIONS §3, §17). `send` without `confirm: true`
 * (the boolean, nothing else) makes no request and answers the preview of exactly this request;
 * with it, sends the request once (never retried, not even on a throttle answer). Identical
 * confirmed calls within the connector's dedup window are answered by the runtime with the first
 * call's outcome, on any replica, before the handler runs. The handler's own `ctx.upstream` may
 * only read (GET) in a write tool; read tools cannot write at all.
 */
export interface WriteGuard {
  /** `confirm === true` on this call. */
  readonly confirmed: boolean;
  send<T = unknown>(
    request: WriteRequest,
    options: {
      readonly summary: string;
      readonly confirmHint: string;
      readonly headers?: Readonly<Record<string, string>>;
    },
  ): Promise<{ readonly preview: WritePreview } | { readonly response: UpstreamResponse<T> }>;
}

/**
 * The arguments of `fail` for a table of codes `E` (`{ code: { param: type } }`): a code and, when
 * its text has parameters, all of them. A union of tuples, so a context with more codes can be
 * passed where fewer are asked for, and a misspelled code or a missing parameter does not compile.
 */
export type FailArgs<E> = {
  [C in keyof E & string]: Record<string, never> extends E[C] ? [code: C, params?: E[C]] : [code: C, params: E[C]];
}[keyof E & string];

/** Name and words of a failure, for a result that reports a failed section instead of failing. */
export interface FailureSummary {
  /** The spec's error name (`UpstreamValidationError`), or the kind of an unexpected failure. */
  readonly name: string;
  /**
   * The spec text with its parameters filled in; the generic text for a failure the spec does not name (never its own
   * message).
   */
  readonly message: string;
}

/**
 * What one tool call's handler may touch. `E` holds the error codes its spec lists with their text
 * parameters, `L` its limits; the generated `<Connector>Context<'tool'>` fills both in.
 */
export interface ToolContext<E = object, L = object, T = object> {
  /** Connector id as served (`<id>`), and the endpoint instance (`<id>` or `<id>-<n>`). */
  readonly connectorId: string;
  readonly instanceId: string;
  readonly accountId: string;
  readonly credential: Credential | null;
  readonly upstream: UpstreamClient;
  /** The connector's and the tool's limits from the spec (tool limits win on a name clash). */
  readonly limits: L;
  readonly log: Logger;
  /** Aborted when the call's deadline passes, the client goes away or cancels the call. */
  readonly signal: AbortSignal;
  /**
   * Reports progress (a client that asked for it sees `notifications/progress`): `done` units of
   * work, of `total` when known, with a short message. Call it per upstream page or unit of work;
   * the runtime drops reports that come too fast or do not grow. A no-op when nobody asked.
   */
  progress(done: number, total?: number, message?: string): void;
  readonly now: () => Date;
  /** Billing and calendar time zone of the deployment (default Europe/Copenhagen). */
  readonly timeZone: string;
  /** The connection's opt-in data layer; present only for tools whose spec sets `dataLayer: true`. */
  readonly dataLayer?: DataLayer;
  /** Seals and opens the handler's opaque tokens (cursors), bound to this account and instance. */
  readonly tokens: SealedTokens;
  /** Per-key request budgets of the connector, shared across replicas (upstream quotas per key). */
  readonly upstreamQuota: UpstreamQuota;
  /** Ends the call with one of the tool's error texts (`{upstream}` is filled in for you). Metered. */
  readonly fail: (...args: FailArgs<E>) => never;
  /**
   * Refuses the call's arguments (a check the schema cannot express), with one of the tool's texts.
   * Before any upstream request it is not metered, like a schema refusal (DECISIONS §8).
   */
  readonly refuseArguments: (...args: FailArgs<E>) => never;
  /**
   * One of the connector's other texts (`connector.texts`: result notes) with its parameters filled
   * in. A method: call it as `ctx.text(…)` (taken off the context it does not compile).
   */
  text(this: ToolContext<E, L, T>, ...args: FailArgs<T>): string;
  /** The spec name and text of a failure caught by the handler (rendered by the runtime, never by hand). */
  describeFailure(this: ToolContext<E, L, T>, error: unknown): FailureSummary;
  /** Writes, preview-first (`write: true` tools only; a read tool's `send` throws). */
  readonly write: WriteGuard;
  /** What the client answered to the previous round of this call's input requests (input-requests.ts). */
  readonly input: CallInput;
  /**
   * Ends this round asking the client for input (MCP 2026-07-28 `input_required`; on the 2025
   * revisions the gateway asks on the call's stream and runs the handler again): requests by key,
   * each for a kind the client declared (`ctx.input.client`; another is refused, -32021), and a
   * state the runtime seals into `requestState` and hands back as `ctx.input.state` on the retry.
   * A method: call it as `ctx.requireInput(…)`.
   */
  requireInput(this: ToolContext<E, L, T>, requests: Readonly<Record<string, InputRequest>>, state?: string): never;
}
