// Which tools of one endpoint a caller may see and call. Several parties narrow it — the client
// (header or path), the account's administrator (per instance), the API token or the assistant's
// OAuth grant — and the narrowest applies: `narrow` intersects. tools/list and tools/call read the
// same selection, so a tool outside it is listed nowhere and answers "Unknown tool." unmetered.
import type { ToolDescriptor } from './handler-api/descriptor-types.ts';

export interface ToolSelection {
  /** Toolset ids the caller may use; absent means every toolset. */
  readonly toolsets?: ReadonlySet<string>;
  /** Tool names (without the instance prefix) turned off; absent means none. */
  readonly disabledTools?: ReadonlySet<string>;
  /** Only tools annotated `readOnlyHint: true`. */
  readonly readOnly?: boolean;
}

/** No narrowing: every tool, as the spec's tools/list requires without a selection. */
export const EVERY_TOOL: ToolSelection = Object.freeze({});

/** The narrowest of two selections: toolsets intersected, disabled tools joined, read-only if either is. */
export function narrow(a: ToolSelection, b: ToolSelection): ToolSelection {
  if (a === EVERY_TOOL) return b;
  if (b === EVERY_TOOL) return a;
  const toolsets =
    a.toolsets && b.toolsets
      ? new Set([...a.toolsets].filter((id) => b.toolsets!.has(id)))
      : (a.toolsets ?? b.toolsets);
  const disabled =
    a.disabledTools && b.disabledTools
      ? new Set([...a.disabledTools, ...b.disabledTools])
      : (a.disabledTools ?? b.disabledTools);
  return {
    ...(toolsets ? { toolsets } : {}),
    ...(disabled ? { disabledTools: disabled } : {}),
    ...(a.readOnly || b.readOnly ? { readOnly: true } : {}),
  };
}

/**
 * Whether a connector tool is inside the selection. System tools (no toolset, such as
 * connect_account) are not connector tools and are not passed here.
 */
export function allows(selection: ToolSelection, tool: ToolDescriptor): boolean {
  if (selection === EVERY_TOOL) return true;
  if (selection.readOnly && !tool.annotations.readOnlyHint) return false;
  if (selection.toolsets && !(tool.toolset !== undefined && selection.toolsets.has(tool.toolset))) return false;
  return !selection.disabledTools?.has(tool.name);
}

/** A canonical text for a selection ('' for every tool): the key under which its tools/list is cached. */
export function selectionKey(selection: ToolSelection): string {
  if (selection === EVERY_TOOL) return '';
  let key = selectionKeys.get(selection);
  if (key === undefined) {
    const sorted = (set: ReadonlySet<string> | undefined) => (set ? [...set].sort().join(',') : '*');
    key =
      `${sorted(selection.toolsets)}|${selection.disabledTools ? [...selection.disabledTools].sort().join(',') : ''}` +
      `|${selection.readOnly ? 'ro' : ''}`;
    selectionKeys.set(selection, key);
  }
  return key;
}

/** Keys of selections made once and reused (a path's selection, an account's settings row). */
const selectionKeys = new WeakMap<ToolSelection, string>();

/**
 * The selection an API token's scope allows on one connector: null when the token may not reach
 * it (refused before the body is read), EVERY_TOOL for an unscoped token.
 */
export function scopeSelection(
  scope: {
    readonly connectors: readonly string[];
    readonly toolsets?: Readonly<Record<string, readonly string[]>>;
    readonly readOnly?: boolean;
  } | null,
  connectorKey: string,
): ToolSelection | null {
  if (scope === null) return EVERY_TOOL;
  if (!scope.connectors.includes(connectorKey)) return null;
  const toolsets = scope.toolsets?.[connectorKey];
  if (toolsets === undefined && !scope.readOnly) return EVERY_TOOL;
  return { ...(toolsets ? { toolsets: new Set(toolsets) } : {}), ...(scope.readOnly ? { readOnly: true } : {}) };
}

/** What an administrator turned off for one instance (store `InstanceToolSettings`). */
interface TurnedOff {
  readonly disabledToolsets: readonly string[];
  readonly disabledTools: readonly string[];
  readonly readOnly: boolean;
}

const accountSelections = new WeakMap<TurnedOff, ToolSelection>();

/**
 * The selection the account's tool settings of an instance leave: every toolset of the connector
 * but the ones turned off, without the tools turned off, read-only when set. Made once per settings
 * row (the snapshot replaces the row when it changes).
 */
export function accountSelection(
  settings: TurnedOff | undefined,
  toolsets: readonly { readonly id: string }[],
): ToolSelection {
  if (settings === undefined) return EVERY_TOOL;
  let made = accountSelections.get(settings);
  if (!made) {
    const off = new Set(settings.disabledToolsets);
    made = {
      ...(off.size > 0 ? { toolsets: new Set(toolsets.map((t) => t.id).filter((id) => !off.has(id))) } : {}),
      ...(settings.disabledTools.length > 0 ? { disabledTools: new Set(settings.disabledTools) } : {}),
      ...(settings.readOnly ? { readOnly: true } : {}),
    };
    accountSelections.set(settings, made);
  }
  return made;
}
