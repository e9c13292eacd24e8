// The normalized model every emitter reads. Raw YAML never reaches an emitter.
import { isObject, resolveRefs, stripKeys, type JsonSchema } from './schema.ts';
import { locate, type SpecSource } from './load.ts';
import type { Position } from './diagnostics.ts';
import { deprecationOf, type DeprecationIR, splitDeprecations } from './deprecations.ts';
import { defaultsRequired, internalCoercion, publishCoercion } from './ir-schemas.ts';
import { mapDescriptions, referenceScope, resolveReferences, systemToolScope } from './references.ts';

/** Resolves a text's references as the descriptor keeps them (codegen/references.ts). */
type Resolve = (text: string) => string;
const asWritten: Resolve = (text) => text;

export type CredentialKind = 'api_key' | 'oauth2' | 'static_token' | 'login_company' | 'managed_basic';

/** What a named limit means to a caller (spec `limitKinds`); `npm run catalog:diff` classifies value changes by it. */
export type LimitKind = 'result' | 'input' | 'upstream' | 'setting';
export const LIMIT_KINDS: readonly LimitKind[] = ['result', 'input', 'upstream', 'setting'];

/** The promise a connector's tool surface makes to existing clients (spec `connector.stability`). */
export type Stability = 'stable' | 'early-access' | 'experimental';

/** The steps of a tools/call in the order the gateway makes them (spec `platform.checkOrder`). */
export type CheckStep = 'tool_name' | 'subscription' | 'seat' | 'connection' | 'fair_use' | 'arguments' | 'upstream';

export interface Annotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint: boolean;
}

export interface ErrorIR {
  readonly code: string;
  readonly text: string;
  /** `{name}` placeholders of the text, in order of first appearance. */
  readonly params: readonly string[];
  readonly name?: string;
  readonly when?: string;
  readonly reconnect: boolean;
  /** Upstream failure classes this text answers when a handler lets the failure through. */
  readonly upstream: readonly UpstreamFailureClass[];
}

/** How the upstream client classifies a failure (runtime/handler-api/upstream-types.ts). */
export type UpstreamFailureClass =
  | 'auth'
  | 'throttled'
  | 'validation'
  | 'not_found'
  | 'timeout'
  | 'server'
  | 'client'
  | 'bad_body'
  | 'too_large'
  | 'network';

/** A text the runtime answers with before any tool runs (HTTP checks, the JSON-RPC envelope). */
export interface ProtocolErrorIR {
  readonly code: string;
  readonly text: string;
  /** `{name}` placeholders of the text, in order of first appearance. */
  readonly params: readonly string[];
  readonly when?: string;
}

export type { DeprecationIR };

export interface ToolIR {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Set when the spec marks the tool deprecated. */
  readonly deprecated?: DeprecationIR;
  /** Top-level arguments the spec marks deprecated (published as `deprecated: true` in the input schema). */
  readonly deprecatedArguments: Readonly<Record<string, DeprecationIR>>;
  /** Id of the connector toolset the tool belongs to (spec `toolset:`); system tools have none. */
  readonly toolset?: string;
  readonly write: boolean;
  readonly system: boolean;
  readonly annotations: Annotations;
  /** What `tools/list` publishes. */
  readonly inputSchema: JsonSchema;
  /** What the validator checks, after the gateway's coercions. */
  readonly validationSchema: JsonSchema;
  /** What the handler receives: defaults filled in, so defaulted arguments are present. */
  readonly argsTypeSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  /** Top-level arguments that accept a digit string for an integer. */
  readonly coerce: readonly string[];
  readonly limits: Readonly<Record<string, number>>;
  /** The handler gets the tenant's opt-in data layer (`ctx.dataLayer`). */
  readonly dataLayer: boolean;
  /** Error codes this tool can return itself (connector or platform), in spec order. */
  readonly errors: readonly string[];
  readonly typeNames: { readonly args: string; readonly result: string };
  /** Where the tool's schemas are in its spec file, for diagnostics raised while emitting. */
  readonly at: { readonly file: string; readonly input: Position; readonly output: Position };
}

/** A named group of a connector's tools (spec top-level `toolsets:`), in spec order. */
export interface ToolsetIR {
  readonly id: string;
  readonly title: string;
  readonly description: string;
}

export interface RetryIR {
  readonly onThrottle: 'none' | 'once';
  readonly maxWaitMs: number;
  readonly defaultWaitMs: number;
}

/** How a tenant connects an `oauth2` connector (spec `connector.oauth`). */
export interface OAuthIR {
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  /** The paths below a deployment's own identity-provider base URL (CONNECTOR_<KEY>_OAUTH_BASE_URL). */
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
  readonly refreshFailed: string;
}

/**
 * Spec `connector.connect`: the read run with a submitted credential, and the text shown when the upstream refuses it.
 */
export interface ConnectIR {
  readonly verify: string;
  readonly rejected: string;
}

export interface ConnectorIR {
  /** Spec file stem: folder name under generated/ and handlers/. */
  readonly key: string;
  readonly source: string;
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly stability: Stability;
  readonly credential: CredentialKind;
  readonly oauth?: OAuthIR;
  /** Whether a tenant stores a credential per endpoint instance (everything but managed). */
  readonly tenantCredential: boolean;
  /** The upstream also takes the integrator's application secret, a deployment setting (spec `appSecret`). */
  readonly appSecret: boolean;
  /** What the connect form checks before it stores a credential (spec `connect`). */
  readonly connect?: ConnectIR;
  /** Spec `connector.connectionTest`: the read tool the portal's "Test connection" runs. */
  readonly connectionTest?: string;
  readonly connectAccount: boolean;
  readonly structuredContent: boolean;
  readonly upstream: {
    readonly name: string;
    readonly baseUrl: string;
    readonly timeoutMs: number;
    readonly retry: RetryIR;
    readonly maxResponseBytes: number;
  };
  readonly limits: Readonly<Record<string, number>>;
  /** The kind of every limit name of the connector and its tools (its own `limitKinds`, else the platform's). */
  readonly limitKinds: Readonly<Record<string, LimitKind>>;
  readonly errors: readonly ErrorIR[];
  /** Other user-visible texts (result notes), by name. */
  readonly texts: Readonly<Record<string, string>>;
  readonly tools: readonly ToolIR[];
  /** Every tool names exactly one of them (SPEC040–SPEC044). */
  readonly toolsets: readonly ToolsetIR[];
  /** Type-name prefix, e.g. `Cases`. */
  readonly typePrefix: string;
}

export interface PlatformIR {
  readonly source: string;
  readonly errors: readonly ErrorIR[];
  /** In spec order. */
  readonly protocolErrors: readonly ProtocolErrorIR[];
  readonly instructions: Readonly<Record<string, string>>;
  /** The portal's user-visible texts (pages, buttons, notices), in spec order. */
  readonly portalTexts: readonly ProtocolErrorIR[];
  readonly annotations: { readonly read: Annotations; readonly write: Annotations };
  readonly limits: Readonly<Record<string, number>>;
  /** Kinds of limit names shared by every connector (platform limits, system tools, common names). */
  readonly limitKinds: Readonly<Record<string, LimitKind>>;
  /** Empty when the platform file does not declare it. */
  readonly checkOrder: readonly CheckStep[];
  readonly systemTools: readonly ToolIR[];
}

export interface SpecIR {
  readonly platform: PlatformIR;
  /** Sorted by key. */
  readonly connectors: readonly ConnectorIR[];
}

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

export function camelCase(name: string): string {
  const p = pascalCase(name);
  return p[0]!.toLowerCase() + p.slice(1);
}

export function kebabCase(name: string): string {
  return name
    .replace(/_/g, '-')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
}

export function placeholders(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/\{([a-z_][a-z0-9_]*)\}/g)) if (!names.includes(match[1]!)) names.push(match[1]!);
  return names;
}

function buildErrors(raw: unknown, resolve: Resolve = asWritten): ErrorIR[] {
  if (!isObject(raw)) return [];
  return Object.entries(raw).map(([code, value]) => {
    const entry =
      typeof value === 'string'
        ? { text: value }
        : (value as {
            text: string;
            name?: string;
            when?: string;
            reconnect?: boolean;
            upstream?: UpstreamFailureClass[];
          });
    const text = resolve(entry.text);
    return {
      code,
      text,
      params: placeholders(text),
      ...(entry.name ? { name: entry.name } : {}),
      ...(entry.when ? { when: resolve(entry.when.trim()) } : {}),
      reconnect: entry.reconnect === true,
      upstream: entry.upstream ?? [],
    };
  });
}

function buildProtocolErrors(raw: unknown, resolve: Resolve = asWritten): ProtocolErrorIR[] {
  if (!isObject(raw)) return [];
  return Object.entries(raw).map(([code, value]) => {
    const entry = typeof value === 'string' ? { text: value } : (value as { text: string; when?: string });
    const text = resolve(entry.text);
    return { code, text, params: placeholders(text), ...(entry.when ? { when: resolve(entry.when.trim()) } : {}) };
  });
}

function numberMap(raw: unknown): Record<string, number> {
  return isObject(raw)
    ? Object.fromEntries(Object.entries(raw).filter((e): e is [string, number] => typeof e[1] === 'number'))
    : {};
}

function kindMap(raw: unknown): Record<string, LimitKind> {
  return isObject(raw)
    ? Object.fromEntries(
        Object.entries(raw).filter((e): e is [string, LimitKind] => LIMIT_KINDS.includes(e[1] as LimitKind)),
      )
    : {};
}

/**
 * Every limit name a connector file uses (connector and tools), with its kind; undeclared names are left out (SPEC036
 * reports them).
 */
function resolveLimitKinds(
  names: Iterable<string>,
  own: Record<string, LimitKind>,
  platform: Readonly<Record<string, LimitKind>>,
): Record<string, LimitKind> {
  const out: Record<string, LimitKind> = {};
  for (const name of [...new Set(names)].sort()) {
    const kind = own[name] ?? platform[name];
    if (kind) out[name] = kind;
  }
  return out;
}

function annotationsOf(raw: unknown): Annotations {
  const a = isObject(raw) ? raw : {};
  return {
    readOnlyHint: a.readOnlyHint === true,
    destructiveHint: a.destructiveHint === true,
    ...(typeof a.idempotentHint === 'boolean' ? { idempotentHint: a.idempotentHint } : {}),
    openWorldHint: a.openWorldHint === true,
  };
}

function buildTool(
  raw: Record<string, unknown>,
  definitions: Record<string, unknown>,
  platformAnnotations: PlatformIR['annotations'] | undefined,
  system: boolean,
  source: SpecSource,
  path: (string | number)[],
  resolve: Resolve,
): ToolIR {
  const name = String(raw.name);
  const write = raw.write === true;
  const split = splitDeprecations(mapDescriptions(resolveRefs(raw.input, definitions), resolve) as JsonSchema, resolve);
  const inputRoot: JsonSchema = { ...split.input };
  if (!('additionalProperties' in inputRoot)) inputRoot.additionalProperties = false;
  if (!isObject(inputRoot.properties)) inputRoot.properties = {};
  const properties = inputRoot.properties as Record<string, unknown>;
  const coerce = Object.entries(properties)
    .filter(([, p]) => isObject(p) && p.coerce === 'integer')
    .map(([n]) => n);
  const validationSchema = stripKeys(internalCoercion(inputRoot), ['coerce']) as JsonSchema;
  const inputSchema = publishCoercion(inputRoot) as JsonSchema;
  const argsTypeSchema = defaultsRequired(validationSchema) as JsonSchema;
  const outputSchema =
    raw.output === undefined
      ? undefined
      : (stripKeys(mapDescriptions(resolveRefs(raw.output, definitions), resolve), ['coerce']) as JsonSchema);
  const base = platformAnnotations
    ? write
      ? platformAnnotations.write
      : platformAnnotations.read
    : annotationsOf(undefined);
  const override = isObject(raw.annotations) ? raw.annotations : {};
  const annotations = annotationsOf({ ...base, ...override });
  return {
    name,
    title: resolve(String(raw.title)),
    description: resolve(String(raw.description).trim()),
    ...(isObject(raw.deprecated) ? { deprecated: deprecationOf(raw.deprecated, resolve)! } : {}),
    deprecatedArguments: split.deprecated,
    ...(!system && typeof raw.toolset === 'string' ? { toolset: raw.toolset } : {}),
    write,
    system,
    annotations,
    inputSchema,
    validationSchema,
    argsTypeSchema,
    ...(outputSchema ? { outputSchema } : {}),
    coerce,
    limits: numberMap(raw.limits),
    dataLayer: raw.dataLayer === true,
    errors: Array.isArray(raw.errors) ? raw.errors.map(String) : [],
    typeNames: { args: `${pascalCase(name)}Args`, result: `${pascalCase(name)}Result` },
    at: { file: source.file, input: locate(source, [...path, 'input']), output: locate(source, [...path, 'output']) },
  };
}

export function buildPlatform(source: SpecSource): PlatformIR {
  const data = source.data as { platform: Record<string, unknown> };
  const p = data.platform;
  const rawAnn = p.annotations as { read: unknown; write: unknown };
  const annotations = { read: annotationsOf(rawAnn.read), write: annotationsOf(rawAnn.write) };
  // Platform texts may name system tools only, which are served unprefixed: resolved here entirely.
  const scope = referenceScope(p, systemToolScope(p));
  const resolve: Resolve = (text) => resolveReferences(text, scope);
  const instructions = isObject(p.instructions)
    ? Object.fromEntries(Object.entries(p.instructions).map(([k, v]) => [k, resolve(String(v).trim())]))
    : {};
  return {
    source: source.file,
    errors: buildErrors(p.errors, resolve),
    protocolErrors: buildProtocolErrors(p.protocolErrors, resolve),
    instructions,
    portalTexts: buildProtocolErrors(p.portal, resolve),
    annotations,
    limits: numberMap(p.limits),
    limitKinds: kindMap(p.limitKinds),
    checkOrder: Array.isArray(p.checkOrder) ? (p.checkOrder as CheckStep[]) : [],
    systemTools: (p.systemTools as Record<string, unknown>[]).map((t, i) =>
      buildTool(t, {}, annotations, true, source, ['platform', 'systemTools', i], resolve),
    ),
  };
}

export function buildConnector(source: SpecSource, platform: PlatformIR): ConnectorIR {
  const data = source.data as {
    connector: Record<string, unknown>;
    definitions?: Record<string, unknown>;
    tools: Record<string, unknown>[];
    toolsets?: Record<string, unknown>[];
  };
  const c = data.connector;
  const upstream = c.upstream as Record<string, unknown>;
  const retry = isObject(upstream.retry) ? upstream.retry : { onThrottle: 'none' };
  const credential = c.credential as CredentialKind;
  const systemTools = new Map(
    platform.systemTools.map((t) => [
      t.name,
      new Set(Object.keys(isObject(t.inputSchema.properties) ? t.inputSchema.properties : {})),
    ]),
  );
  const scope = referenceScope(data, systemTools);
  const resolve: Resolve = (text) => resolveReferences(text, scope);
  const tools = data.tools.map((t, i) =>
    buildTool(t, data.definitions ?? {}, platform.annotations, false, source, ['tools', i], resolve),
  );
  const limits = numberMap(c.limits);
  const served = c.connectAccount === true ? platform.systemTools.filter((t) => t.name === 'connect_account') : [];
  const limitNames = [...Object.keys(limits), ...[...tools, ...served].flatMap((t) => Object.keys(t.limits))];
  return {
    key: source.stem,
    source: source.file,
    id: String(c.id),
    title: String(c.title),
    description: resolve(String(c.description).trim()),
    stability: c.stability === 'early-access' || c.stability === 'experimental' ? c.stability : 'stable',
    credential,
    ...(isObject(c.oauth) ? { oauth: buildOAuth(c.oauth) } : {}),
    tenantCredential: credential !== 'managed_basic',
    appSecret: c.appSecret === true,
    ...(isObject(c.connect)
      ? { connect: { verify: String(c.connect.verify), rejected: String(c.connect.rejected) } }
      : {}),
    ...(typeof c.connectionTest === 'string' ? { connectionTest: c.connectionTest } : {}),
    connectAccount: c.connectAccount === true,
    structuredContent: c.structuredContent === true,
    upstream: {
      name: String(upstream.name),
      baseUrl: String(upstream.baseUrl),
      timeoutMs: Number(upstream.timeoutMs),
      retry: {
        onThrottle: retry.onThrottle === 'once' ? 'once' : 'none',
        maxWaitMs: typeof retry.maxWaitMs === 'number' ? retry.maxWaitMs : 5000,
        defaultWaitMs: typeof retry.defaultWaitMs === 'number' ? retry.defaultWaitMs : 1000,
      },
      maxResponseBytes:
        typeof upstream.maxResponseBytes === 'number' ? upstream.maxResponseBytes : DEFAULT_MAX_RESPONSE_BYTES,
    },
    limits,
    limitKinds: resolveLimitKinds(limitNames, kindMap(c.limitKinds), platform.limitKinds),
    errors: buildErrors(c.errors, resolve),
    texts: isObject(c.texts)
      ? Object.fromEntries(Object.entries(c.texts).map(([k, v]) => [k, resolve(String(v).trim())]))
      : {},
    tools,
    toolsets: (data.toolsets ?? []).map((t) => ({
      id: String(t.id),
      title: String(t.title),
      description: resolve(String(t.description).trim()),
    })),
    typePrefix: pascalCase(source.stem),
  };
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

function buildOAuth(raw: Record<string, unknown>): OAuthIR {
  const strings = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  const granted = isObject(raw.grantedScopes) ? raw.grantedScopes : {};
  const base = trimSlash(String(raw.baseUrl));
  const tokenBase = typeof raw.tokenBaseUrl === 'string' ? trimSlash(raw.tokenBaseUrl) : base;
  return {
    authorizeUrl: base + String(raw.authorizePath),
    tokenUrl: tokenBase + String(raw.tokenPath),
    authorizePath: String(raw.authorizePath),
    tokenPath: String(raw.tokenPath),
    scopes: strings(raw.scopes),
    authorizeParams: isObject(raw.authorizeParams)
      ? Object.fromEntries(Object.entries(raw.authorizeParams).map(([k, v]) => [k, String(v)]))
      : {},
    pkce: 'S256',
    clientAuth:
      raw.clientAuth === 'client_secret_basic' || raw.clientAuth === 'none' ? raw.clientAuth : 'client_secret_post',
    requireRefreshToken: raw.requireRefreshToken !== false,
    grantedScopes: {
      requireOneOf: strings(granted.requireOneOf),
      tolerated: strings(granted.tolerated),
      closed: granted.closed === true,
    },
    refreshAheadSeconds: typeof raw.refreshAheadSeconds === 'number' ? raw.refreshAheadSeconds : 60,
    tokenTimeoutMs: typeof raw.tokenTimeoutMs === 'number' ? raw.tokenTimeoutMs : 4000,
    refreshFailed: String(raw.refreshFailed),
  };
}
