// Shapes of the generated descriptor tables (generated/<connector>/descriptor.ts). The runtime
// serves `tools/list` and applies limits and error texts from these; nothing switches on names.
import type { ToolContext } from './tool-context.ts';
import type { UpstreamFailureKind } from './upstream-types.ts';

export type CredentialKind = 'api_key' | 'oauth2' | 'static_token' | 'login_company' | 'managed_basic';

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint: boolean;
}

export interface ErrorEntry {
  readonly text: string;
  readonly params: readonly string[];
  readonly name?: string;
  readonly reconnect: boolean;
  /** Upstream failure classes this text answers when a handler lets the failure through (`{status}` is filled in). */
  readonly upstream?: readonly UpstreamFailureKind[];
}

export type JsonSchemaObject = { readonly [key: string]: unknown };

/** A deprecated tool or argument (spec `deprecated:`); `replacement` is a bare tool name or an argument name. */
export interface Deprecation {
  readonly reason: string;
  readonly replacement?: string;
  /** The last day it is served, YYYY-MM-DD (UTC). */
  readonly sunset: string;
}

export interface ToolDescriptor {
  /** Bare name; served as `<instance>__<name>` (system tools unprefixed). */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Set when the spec marks the tool deprecated: tools/list says so, its calls are counted apart. */
  readonly deprecated?: Deprecation;
  /** Top-level arguments marked deprecated (each also `deprecated: true` in the input schema). */
  readonly deprecatedArguments?: Readonly<Record<string, Deprecation>>;
  /**
   * Id of the connector toolset the tool belongs to (one of `ConnectorDescriptor.toolsets`); system tools have none.
   */
  readonly toolset?: string;
  readonly write: boolean;
  readonly annotations: ToolAnnotations;
  readonly inputSchema: JsonSchemaObject;
  /** Published only by connectors that return `structuredContent`. */
  readonly outputSchema?: JsonSchemaObject;
  /** Top-level arguments whose digit strings become integers before validation. */
  readonly coerce: readonly string[];
  readonly limits: Readonly<Record<string, number>>;
  /** The handler gets the tenant's opt-in data layer as `ctx.dataLayer` (spec `dataLayer: true`). */
  readonly dataLayer?: boolean;
  readonly errors: readonly string[];
}

/** A named group of a connector's tools (spec `toolsets:`), selected by clients and administrators by `id`. */
export interface ToolsetDescriptor {
  /** Lowercase kebab or snake case, unique in the connector. */
  readonly id: string;
  readonly title: string;
  /** One line on what the toolset's tools are for. */
  readonly description: string;
}

export interface UpstreamPolicy {
  readonly name: string;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly retry: { readonly onThrottle: 'none' | 'once'; readonly maxWaitMs: number; readonly defaultWaitMs: number };
  readonly maxResponseBytes: number;
}

/**
 * How a tenant connects an `oauth2` connector (spec `connector.oauth`): authorization code with
 * PKCE S256, the granted-scope rule, and the refresh policy. The runtime's OAuth platform
 * (runtime/upstream/oauth.ts) reads it; handlers only ever see the resulting access token.
 */
export interface OAuthProvider {
  /** The provider's real endpoints (the spec's base URLs and paths). */
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  /** The paths below a deployment's own base URL (CONNECTOR_<KEY>_OAUTH_BASE_URL). */
  readonly authorizePath: string;
  readonly tokenPath: string;
  readonly scopes: readonly string[];
  readonly authorizeParams: Readonly<Record<string, string>>;
  readonly pkce: 'S256';
  readonly clientAuth: 'client_secret_post' | 'client_secret_basic' | 'none';
  readonly requireRefreshToken: boolean;
  readonly grantedScopes: {
    readonly requireOneOf: readonly string[];
    readonly tolerated: readonly string[];
    readonly closed: boolean;
  };
  readonly refreshAheadSeconds: number;
  readonly tokenTimeoutMs: number;
  /** The connector error code (a reconnect text) answered when the grant is refused at refresh. */
  readonly refreshFailed: string;
}

/**
 * What the portal connect form does with a submitted credential before storing it (spec
 * `connector.connect`): runs the read tool `verify` once with it (one real upstream read, not
 * metered); a credential the upstream refuses is not stored and the form shows the text `rejected`.
 */
export interface ConnectCheck {
  readonly verify: string;
  readonly rejected: string;
}

export interface ConnectorDescriptor<Code extends string = string> {
  readonly key: string;
  readonly defaultId: string;
  readonly title: string;
  readonly instructions: string;
  readonly credential: CredentialKind;
  /** Present for `oauth2` connectors. */
  readonly oauth?: OAuthProvider;
  readonly tenantCredential: boolean;
  /**
   * The upstream also takes the integrator's application secret beside each tenant's credential:
   * one deployment setting (CONNECTOR_<KEY>_APP_SECRET_TOKEN), handed over as `credential.appSecret`.
   */
  readonly appSecret?: true;
  readonly connect?: ConnectCheck;
  /** The read tool (no required arguments) the portal's "Test connection" runs with a stored connection. */
  readonly connectionTest?: string;
  readonly connectAccount: boolean;
  readonly structuredContent: boolean;
  readonly upstream: UpstreamPolicy;
  readonly limits: Readonly<Record<string, number>>;
  readonly errors: Readonly<Record<Code, ErrorEntry>>;
  /** Other user-visible texts of the connector (result notes), by name. */
  readonly texts: Readonly<Record<string, string>>;
  /** In spec order; every tool of `tools` names exactly one by `toolset`. */
  readonly toolsets: readonly ToolsetDescriptor[];
  readonly tools: readonly ToolDescriptor[];
}

/** A text with its `{name}` placeholders (the platform's protocol error texts). */
export interface TextEntry {
  readonly text: string;
  readonly params: readonly string[];
}

export interface PlatformDescriptor<
  Code extends string = string,
  ProtocolCode extends string = string,
  PortalText extends string = string,
  Limits extends object = object,
  Instruction extends string = string,
> {
  readonly errors: Readonly<Record<Code, ErrorEntry>>;
  /** Texts of refusals before any tool runs (HTTP checks, the JSON-RPC envelope), by code. */
  readonly protocolErrors: Readonly<Record<ProtocolCode, TextEntry>>;
  readonly instructions: Readonly<Record<Instruction, string>>;
  /** The portal's texts (page titles, labels, notices), by name; `{name}` placeholders. */
  readonly portalTexts: Readonly<Record<PortalText, TextEntry>>;
  readonly annotations: { readonly read: ToolAnnotations; readonly write: ToolAnnotations };
  /** By name; the generated `PlatformLimits` lists them (generated/platform/descriptor.ts). */
  readonly limits: Readonly<Limits>;
  /**
   * The order of the checks of a tools/call as the spec declares it (`platform.checkOrder`, also in
   * the catalog); the gateway refuses to start unless its pipeline makes them in this order
   * (runtime/pipeline/check-order.ts).
   */
  readonly checkOrder: readonly string[];
  readonly systemTools: readonly ToolDescriptor[];
}

/** An ahead-of-time compiled ajv validator (generated/<connector>/validators.js). */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: Array<{ instancePath: string; message?: string; keyword: string; params: Record<string, unknown> }> | null;
}

/**
 * A handler as the runtime holds it, its spec types erased. Declared as a method so that a handler
 * typed for one tool (narrower arguments and context) is accepted without a cast: the generated
 * `generated/<key>/handlers.ts` has already checked it against its tool's contract with `satisfies`.
 */
interface ErasedHandlerHolder {
  handle(args: object, ctx: ToolContext): Promise<unknown>;
}
export type ErasedHandler = ErasedHandlerHolder['handle'];

/** One connector as generated/registry.ts holds it: what the runtime needs to serve it. */
export interface ConnectorModule {
  readonly descriptor: ConnectorDescriptor;
  /** `input_<tool>` and `output_<tool>` validators. */
  readonly validators: Readonly<Record<string, CompiledValidator>>;
  readonly handlers: Readonly<Record<string, ErasedHandler>>;
}

/** Every connector the runtime may serve, by key (generated/registry.ts, or a test's own). */
export type ConnectorRegistry = Readonly<Record<string, ConnectorModule>>;
