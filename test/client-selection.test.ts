// The client's selection read from an MCP path and its headers (runtime/mcp/client-selection.ts;
// docs/decisions/mcp-surface.md, 'Toolsets and read-only chosen by the client, by header or path'),
// rule by rule, without a server.
import { describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import type { ConnectorConfig } from '../runtime/config/settings.ts';
import { buildConnectorRuntime, type Endpoint } from '../runtime/gateway-context.ts';
import { clientSelection, mcpTarget, READONLY_HEADER, TOOLSETS_HEADER } from '../runtime/mcp/client-selection.ts';
import { CORS_ALLOW_HEADERS } from '../runtime/transport/cors.ts';
import { EVERY_TOOL, selectionKey } from '../runtime/tool-selection.ts';

const { descriptor, validators } = registry.books;
const config: ConnectorConfig = {
  key: 'books',
  id: 'books',
  enabled: true,
  baseUrl: descriptor.upstream.baseUrl,
  maxInstances: 2,
};
const connector = buildConnectorRuntime(config, { descriptor, validators, handlers: {} });
const endpoints = new Map<string, Endpoint>([
  ['books', { instanceId: 'books', instance: 1, connector }],
  ['books-2', { instanceId: 'books-2', instance: 2, connector }],
]);

const keyOf = (inner: string, headers: Record<string, string> = {}) => {
  const target = mcpTarget(endpoints, inner);
  if (!target) return 'no endpoint';
  const verdict = clientSelection(target, headers);
  return verdict.ok ? selectionKey(verdict.selection) : `refused: ${verdict.message}`;
};

describe('client selection', () => {
  it("makes a selection path's target and verdict once, and never keeps a path that names nothing", () => {
    const first = mcpTarget(endpoints, 'books/x/contacts/readonly')!;
    expect(mcpTarget(endpoints, 'books/x/contacts/readonly')).toBe(first);
    expect(clientSelection(first, {})).toBe(clientSelection(first, {}));
    // A header still narrows per request, from the same kept target.
    const withHeader = clientSelection(first, { [TOOLSETS_HEADER]: 'invoices' });
    expect(withHeader).not.toBe(clientSelection(first, {}));
    expect(withHeader.ok && [...(withHeader.selection.toolsets ?? [])]).toEqual([]);
    // Other endpoint sets (another gateway in the same process) do not share kept targets.
    const other = new Map(endpoints);
    expect(mcpTarget(other, 'books/x/contacts/readonly')).not.toBe(first);
    expect(mcpTarget(endpoints, 'books/x/%E0%A4%A/mcp')).toBeUndefined();
    expect(mcpTarget(endpoints, 'nobooks/x/contacts')).toBeUndefined();
  });

  it('resolves the path forms, in their one order, on every instance', () => {
    expect(mcpTarget(endpoints, 'books')).toBe(mcpTarget(endpoints, 'books'));
    expect(mcpTarget(endpoints, 'books-2/x/contacts')).toMatchObject({
      endpoint: endpoints.get('books-2'),
      toolsets: 'contacts',
      readOnly: false,
    });
    expect(mcpTarget(endpoints, 'books/readonly')).toMatchObject({ readOnly: true });
    expect(mcpTarget(endpoints, 'books/x/contacts%2Cinvoices/readonly')).toMatchObject({
      toolsets: 'contacts,invoices',
      readOnly: true,
    });
    for (const inner of [
      'books-3',
      'books/x',
      'books/x/',
      'books/readonly/x/contacts',
      'books/readonly/readonly',
      'books/y/contacts',
      'books/x/%E0%A4%A',
      'nope/x/contacts',
    ]) {
      expect(mcpTarget(endpoints, inner), inner).toBeUndefined();
    }
  });

  it('no path segment and no header is every tool, the same frozen verdict each time', () => {
    const target = mcpTarget(endpoints, 'books')!;
    const a = clientSelection(target, {});
    expect(a.ok && a.selection).toBe(EVERY_TOOL);
    expect(clientSelection(target, { accept: 'application/json' })).toBe(a);
  });

  it('headers and path narrow each other; read-only only for "true"', () => {
    expect(keyOf('books', { 'x-mcp-toolsets': ' contacts , invoices,' })).toBe('contacts,invoices||');
    expect(keyOf('books/x/contacts,invoices', { 'x-mcp-toolsets': 'invoices,organisations' })).toBe('invoices||');
    expect(keyOf('books', { 'x-mcp-readonly': 'TRUE' })).toBe('*||ro');
    expect(keyOf('books', { 'x-mcp-readonly': 'false' })).toBe('');
    expect(keyOf('books', { 'x-mcp-readonly': 'yes' })).toBe('');
    expect(keyOf('books', { 'x-mcp-toolsets': '' })).toBe('');
    expect(keyOf('books-2/x/contacts/readonly')).toBe('contacts||ro');
  });

  it('an unknown toolset in the path or the header is refused with the valid ones', () => {
    const valid = descriptor.toolsets.map((s) => s.id).join(', ');
    expect(keyOf('books/x/contacts,nope')).toBe(`refused: Unknown toolset nope on books. Valid toolsets: ${valid}.`);
    expect(keyOf('books-2', { 'x-mcp-toolsets': 'a,b' })).toBe(
      `refused: Unknown toolset a, b on books-2. Valid toolsets: ${valid}.`,
    );
    const long = clientSelection(mcpTarget(endpoints, 'books')!, { 'x-mcp-toolsets': 'z'.repeat(500) });
    expect(!long.ok && long.message.length).toBeLessThan(400);
  });

  it('a browser client may send both headers (CORS allow-headers)', () => {
    expect(CORS_ALLOW_HEADERS.split(', ')).toEqual(expect.arrayContaining([TOOLSETS_HEADER, READONLY_HEADER]));
  });
});
