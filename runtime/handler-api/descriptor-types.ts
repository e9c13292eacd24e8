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

export interface ToolDescriptor {
  /** Bare name; served as `<instance>__<name>` (system tools unprefixed). */
  readonly name: string;
  readonly title: string;
  readonly description: string;
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

export interface UpstreamPolicy {
  readonly name: string;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly retry: { readonly onThrottle: 'none' | 'once'; readonly maxWaitMs: number; readonly defaultWaitMs: number };
  readonly maxResponseBytes: number;
}

export interface ConnectorDescriptor<Code extends string = string> {
  readonly key: string;
  readonly defaultId: string;
  readonly title: string;
  readonly instructions: string;
  readonly credential: CredentialKind;
  readonly tenantCredential: boolean;
  readonly connectAccount: boolean;
  readonly structuredContent: boolean;
  readonly upstream: UpstreamPolicy;
  readonly limits: Readonly<Record<string, number>>;
  readonly errors: Readonly<Record<Code, ErrorEntry>>;
  /** Other user-visible texts of the connector (result notes), by name. */
  readonly texts: Readonly<Record<string, string>>;
  readonly tools: readonly ToolDescriptor[];
}

/** A text with its `{name}` placeholders (the platform's protocol error texts). */
export interface TextEntry {
  readonly text: string;
  readonly params: readonly string[];
}

export interface PlatformDescriptor<Code extends string = string, ProtocolCode extends string = string> {
  readonly errors: Readonly<Record<Code, ErrorEntry>>;
  /** Texts of refusals before any tool runs (HTTP checks, the JSON-RPC envelope), by code. */
  readonly protocolErrors: Readonly<Record<ProtocolCode, TextEntry>>;
  readonly instructions: Readonly<Record<string, string>>;
  readonly annotations: { readonly read: ToolAnnotations; readonly write: ToolAnnotations };
  readonly limits: Readonly<Record<string, number>>;
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
