// The selection a client makes of an endpoint's tools (docs/decisions/mcp-surface.md, 'Toolsets
// and read-only chosen by the client, by header or path'): the path
// `/<instance>[/x/<toolset,…>][/readonly]/mcp` and the headers `X-MCP-Toolsets` and
// `X-MCP-Readonly`, read once per request in the transport and carried to the methods and the
// pipeline as one ToolSelection. Path and header together narrow each other. Without either the
// selection is EVERY_TOOL, and nothing is allocated.
import type { Endpoint } from '../gateway-context.ts';
import { protocolText } from '../protocol-text.ts';
import { EVERY_TOOL, narrow, type ToolSelection } from '../tool-selection.ts';
import { ErrorCode } from './protocol.ts';

export const TOOLSETS_HEADER = 'x-mcp-toolsets';
export const READONLY_HEADER = 'x-mcp-readonly';

/** An MCP path resolved: the endpoint instance and what the path itself selects. */
export interface McpTarget {
  readonly endpoint: Endpoint;
  /** The `/x/<toolset,…>` segment as written (checked later, with the headers). */
  readonly toolsets?: string;
  /** A `/readonly` segment. */
  readonly readOnly: boolean;
  /** The path between `/` and `/mcp` as the client wrote it: its OAuth resource is this URL. */
  readonly inner: string;
}

/** The target of a path without selection segments, one per instance (the fast path allocates nothing). */
const plainTargets = new WeakMap<Endpoint, McpTarget>();

/**
 * The target of an MCP path's inner part (between the leading `/` and the trailing `/mcp`):
 * `<instance>`, `<instance>/x/<toolsets>`, `<instance>/readonly` or `<instance>/x/<toolsets>/readonly`;
 * undefined for anything else.
 */
export function mcpTarget(endpoints: ReadonlyMap<string, Endpoint>, inner: string): McpTarget | undefined {
  const plain = endpoints.get(inner);
  if (plain) {
    let target = plainTargets.get(plain);
    if (!target) {
      target = Object.freeze({ endpoint: plain, readOnly: false, inner });
      plainTargets.set(plain, target);
    }
    return target;
  }
  // A client uses one selection path for every request of a conversation: its target (and below,
  // its selection) is made once per set of endpoints, a bounded number of paths kept.
  let known = selectionTargets.get(endpoints);
  if (!known) {
    known = new Map();
    selectionTargets.set(endpoints, known);
  }
  const seen = known.get(inner);
  if (seen) return seen;
  const target = parseTarget(endpoints, inner);
  if (target) {
    if (known.size >= SELECTION_PATHS_KEPT) known.delete(known.keys().next().value!);
    known.set(inner, Object.freeze(target));
  }
  return target;
}

/** Selection paths (`/<instance>/x/…`, `/readonly`) whose target is kept per set of endpoints. */
const SELECTION_PATHS_KEPT = 256;
const selectionTargets = new WeakMap<ReadonlyMap<string, Endpoint>, Map<string, McpTarget>>();

function parseTarget(endpoints: ReadonlyMap<string, Endpoint>, inner: string): McpTarget | undefined {
  const parts = inner.split('/');
  const endpoint = endpoints.get(parts[0]!);
  if (!endpoint) return undefined;
  let i = 1;
  let toolsets: string | undefined;
  if (parts[i] === 'x' && parts[i + 1]) {
    try {
      toolsets = decodeURIComponent(parts[i + 1]!);
    } catch {
      return undefined; // a broken percent-encoding names nothing
    }
    i += 2;
  }
  const readOnly = parts[i] === 'readonly';
  if (readOnly) i++;
  if (i !== parts.length || i === 1) return undefined;
  return toolsets === undefined ? { endpoint, readOnly, inner } : { endpoint, toolsets, readOnly, inner };
}

/** A refusal of the selection: HTTP 400 with a JSON-RPC error naming the valid toolsets. */
export interface SelectionRefusal {
  readonly ok: false;
  readonly status: 400;
  readonly code: number;
  readonly message: string;
  readonly data: { readonly unknown: readonly string[]; readonly valid: readonly string[] };
}

export type SelectionVerdict = { readonly ok: true; readonly selection: ToolSelection } | SelectionRefusal;

const ALL: SelectionVerdict = Object.freeze({ ok: true, selection: EVERY_TOOL });

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);

/** The toolset ids of a comma-separated list (spaces around names ignored, empty names dropped). */
const idsOf = (list: string) =>
  list
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');

function toolsetSelection(endpoint: Endpoint, list: string): ToolSelection | SelectionRefusal {
  const ids = idsOf(list);
  const valid = endpoint.connector.descriptor.toolsets.map((set) => set.id);
  const unknown = ids.filter((id) => !valid.includes(id));
  if (unknown.length > 0) {
    const shown = unknown.map((id) => (id.length > 60 ? `${id.slice(0, 60)}…` : id)).slice(0, 10);
    return {
      ok: false,
      status: 400,
      code: ErrorCode.InvalidParams,
      message: protocolText('toolset_unknown', {
        toolsets: shown.join(', '),
        instance_id: endpoint.instanceId,
        valid: valid.join(', '),
      }),
      data: { unknown: shown, valid },
    };
  }
  return ids.length === 0 ? EVERY_TOOL : { toolsets: new Set(ids) };
}

/**
 * What the client selects of the target's endpoint: the path's segments narrowed by the headers.
 * An unknown toolset name (in either) is refused with the list of valid ones; a read-only header
 * is on only when its value is `true` (any case).
 */
export function clientSelection(target: McpTarget, headers: Headers): SelectionVerdict {
  const header = headerText(headers[TOOLSETS_HEADER]);
  const readOnlyHeader = headerText(headers[READONLY_HEADER]);
  if (header === undefined && readOnlyHeader === undefined) {
    if (target.toolsets === undefined && !target.readOnly) return ALL;
    // The path alone selects: the same verdict for every request on this (kept) target.
    let verdict = pathVerdicts.get(target);
    if (!verdict) {
      verdict = select(target, undefined, undefined);
      pathVerdicts.set(target, verdict);
    }
    return verdict;
  }
  return select(target, header, readOnlyHeader);
}

/** The verdict of a target's path segments alone, made once per target. */
const pathVerdicts = new WeakMap<McpTarget, SelectionVerdict>();

function select(target: McpTarget, header: string | undefined, readOnlyHeader: string | undefined): SelectionVerdict {
  let selection: ToolSelection = EVERY_TOOL;
  for (const list of [target.toolsets, header]) {
    if (list === undefined) continue;
    const made = toolsetSelection(target.endpoint, list);
    if ('ok' in made) return made;
    selection = narrow(selection, made);
  }
  if (target.readOnly || readOnlyHeader?.trim().toLowerCase() === 'true')
    selection = narrow(selection, { readOnly: true });
  return selection === EVERY_TOOL ? ALL : { ok: true, selection };
}
