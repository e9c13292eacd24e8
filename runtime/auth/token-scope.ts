// The scope of an API token as people write it (admin CLI flags, the portal's Tokens form) and read
// it (token lists, audit entries): docs/decisions/mcp-authorization.md, 'Scopes on API tokens'.
import type { TokenScope } from '../store/store.ts';

/** The connectors a scope may name, each with its toolset ids. */
export type ScopeCatalog = ReadonlyMap<string, ReadonlySet<string>>;

/** What a person asked for: comma-separated lists, as typed. */
export interface ScopeInput {
  /** Connector keys (`cases,erp`); empty with toolsets: the connectors the toolsets name. */
  readonly connectors?: string;
  /** `<connector>:<toolset>` pairs (`books:contacts,books:invoices`). */
  readonly toolsets?: string;
  readonly readOnly?: boolean;
}

const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');

/**
 * The scope, null for an unscoped token (nothing asked), or the reason it cannot be made (an unknown
 * connector or toolset, a toolset of a connector the scope leaves out). Read-only alone reaches
 * every connector known now, read-only.
 */
export function parseTokenScope(input: ScopeInput, catalog: ScopeCatalog): TokenScope | null | { error: string } {
  const connectors = list(input.connectors);
  const pairs = list(input.toolsets);
  if (connectors.length === 0 && pairs.length === 0 && !input.readOnly) return null;
  for (const key of connectors)
    if (!catalog.has(key)) return { error: `unknown connector "${key}" (one of ${[...catalog.keys()].join(', ')})` };
  const toolsets: Record<string, string[]> = {};
  for (const pair of pairs) {
    const [key, id] = pair.split(':');
    const known = key === undefined ? undefined : catalog.get(key);
    if (!known || id === undefined) return { error: `toolsets are <connector>:<toolset>, got "${pair}"` };
    if (!known.has(id)) return { error: `unknown toolset "${id}" of ${key} (one of ${[...known].join(', ')})` };
    if (connectors.length > 0 && !connectors.includes(key!))
      return { error: `toolset ${pair} names a connector the scope leaves out` };
    toolsets[key!] = [...(toolsets[key!] ?? []), id];
  }
  const reached = connectors.length > 0 ? connectors : pairs.length > 0 ? Object.keys(toolsets) : [...catalog.keys()];
  return {
    connectors: [...new Set(reached)],
    ...(Object.keys(toolsets).length > 0 ? { toolsets } : {}),
    ...(input.readOnly ? { readOnly: true } : {}),
  };
}

/** One line for lists and audit entries: `cases (read-only); books: contacts, invoices`, or `all`. */
export function describeTokenScope(scope: TokenScope | null): string {
  if (scope === null) return 'all';
  const parts = scope.connectors.map((key) => {
    const ids = scope.toolsets?.[key];
    return ids ? `${key}: ${ids.join(', ')}` : key;
  });
  return `${parts.join('; ') || 'no connector'}${scope.readOnly ? ' (read-only)' : ''}`;
}

/** The names an instance's tool settings may turn off: its connector's toolset ids and tool names. */
export interface ToolNames {
  readonly toolsets: readonly string[];
  readonly tools: readonly string[];
}

/**
 * Comma-separated toolset ids and tool names to turn off for an instance (`none` or empty for
 * none), checked against the connector's: the lists, or the reason they cannot be used.
 */
export function parseTurnedOff(
  input: { readonly toolsets?: string; readonly tools?: string },
  names: ToolNames,
): { disabledToolsets: string[]; disabledTools: string[] } | { error: string } {
  const listed = (text: string | undefined) => (text?.trim() === 'none' ? [] : [...new Set(list(text))]);
  const disabledToolsets = listed(input.toolsets);
  const disabledTools = listed(input.tools);
  const unknownSet = disabledToolsets.find((id) => !names.toolsets.includes(id));
  if (unknownSet) return { error: `unknown toolset "${unknownSet}" (one of ${names.toolsets.join(', ')})` };
  const unknownTool = disabledTools.find((name) => !names.tools.includes(name));
  if (unknownTool) return { error: `unknown tool "${unknownTool}" of this connector` };
  return { disabledToolsets, disabledTools };
}

/** The OAuth scope values of an endpoint (RFC 9728 `scopes_supported`): asking for all is asking for everything. */
export function oauthScopesOf(toolsetIds: readonly string[]): string[] {
  return ['tools:read', 'tools:write', ...toolsetIds.map((id) => `toolset:${id}`)];
}

/**
 * The grant scope an assistant asked for (the OAuth `scope` values) on an endpoint of `connectorKey`:
 * `toolset:<id>` values keep only those toolsets, `tools:read` without `tools:write` keeps only
 * read-only tools; no value that narrows (none, or every value) is null, an unscoped grant. An
 * unknown value is the reason to refuse (`invalid_scope`).
 */
export function parseOAuthScope(
  scopes: readonly string[],
  connectorKey: string,
  toolsetIds: readonly string[],
): TokenScope | null | { error: string } {
  const toolsets: string[] = [];
  let read = false;
  let write = false;
  for (const value of scopes) {
    if (value === 'tools:read') read = true;
    else if (value === 'tools:write') write = true;
    else if (value.startsWith('toolset:') && toolsetIds.includes(value.slice(8))) toolsets.push(value.slice(8));
    else return { error: `unknown scope "${value.slice(0, 100)}"` };
  }
  const someToolsets = toolsets.length > 0 && toolsets.length < toolsetIds.length;
  const readOnly = read && !write;
  if (!someToolsets && !readOnly) return null;
  return {
    connectors: [connectorKey],
    ...(someToolsets ? { toolsets: { [connectorKey]: [...new Set(toolsets)] } } : {}),
    ...(readOnly ? { readOnly: true } : {}),
  };
}
