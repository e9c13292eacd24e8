// What a handler may touch: its instance, its own decrypted credential, an upstream client already
// configured for the connector (deadline, no redirects, size cap, throttle retry), its limits, a
// logger without secrets, and the clock. Never the caller's token, another instance's credential
// or the database.
import type { Logger } from 'pino';
import type { ErrorParams } from './tool-error.ts';
import type { UpstreamClient } from './upstream-types.ts';

/** A decrypted tenant credential, by the connector's credential kind. */
export type Credential =
  | { readonly kind: 'api_key'; readonly apiKey: string }
  | { readonly kind: 'static_token'; readonly token: string }
  | { readonly kind: 'login_company'; readonly username: string; readonly password: string; readonly companyId: string }
  | { readonly kind: 'oauth2'; readonly accessToken: string; readonly refreshToken?: string; readonly expiresAt?: number; readonly scope?: string }
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

export interface ToolContext {
  /** Connector id as served (`register`), and the endpoint instance (`register` or `register-2`). */
  readonly connectorId: string;
  readonly instanceId: string;
  readonly accountId: string;
  readonly credential: Credential | null;
  readonly upstream: UpstreamClient;
  /** The connector's and the tool's limits from the spec (tool limits win on a name clash). */
  readonly limits: Readonly<Record<string, number>>;
  readonly log: Logger;
  /** Aborted when the call's deadline passes or the client goes away. */
  readonly signal: AbortSignal;
  readonly now: () => Date;
  /** Billing and calendar time zone of the deployment (default Europe/Copenhagen). */
  readonly timeZone: string;
  /** The connection's opt-in data layer; present only for tools whose spec sets `dataLayer: true`. */
  readonly dataLayer?: DataLayer;
  /** Ends the call with one of the connector's error texts (`{upstream}` is filled in for you). */
  readonly fail: (code: string, params?: ErrorParams) => never;
}

export type ToolHandler<Args, Result> = (args: Args, ctx: ToolContext) => Promise<Result>;
