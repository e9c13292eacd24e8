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
  /** Ends the call with one of the connector's error texts (`{upstream}` is filled in for you). */
  readonly fail: (code: string, params?: ErrorParams) => never;
}

export type ToolHandler<Args, Result> = (args: Args, ctx: ToolContext) => Promise<Result>;
