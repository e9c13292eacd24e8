// The gateway keeps the MCP constants it needs at start-up itself (the SDK's runtime module loads
// every zod schema); this keeps them in step with the SDK the clients use. Also the envelope's
// texts and the method map.
import {
  ErrorCode as SdkErrorCode,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createMethods, dispatch } from '../runtime/mcp/methods.ts';
import {
  ErrorCode,
  LATEST,
  SERVED_PROTOCOL_VERSIONS,
  classify,
  negotiateVersion,
  resultJson,
} from '../runtime/mcp/protocol.ts';
import { protocolText } from '../runtime/protocol-text.ts';
import { EVERY_TOOL } from '../runtime/tool-selection.ts';

describe('MCP protocol constants', () => {
  it('match the SDK', () => {
    for (const [name, code] of Object.entries(ErrorCode))
      expect(SdkErrorCode[name as keyof typeof SdkErrorCode], name).toBe(code);
    expect(LATEST).toBe(LATEST_PROTOCOL_VERSION);
    for (const v of SERVED_PROTOCOL_VERSIONS) expect(SUPPORTED_PROTOCOL_VERSIONS).toContain(v);
  });

  it('negotiates and classifies', () => {
    expect(negotiateVersion('2025-06-18')).toBe('2025-06-18');
    expect(negotiateVersion('2024-11-05')).toBe(LATEST);
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'ping' })).toMatchObject({
      kind: 'request',
      id: 1,
      method: 'ping',
    });
    expect(classify({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({
      kind: 'notification',
      method: 'notifications/initialized',
    });
    expect(classify({ jsonrpc: '2.0', id: 1, result: {} })).toEqual({ kind: 'response' });
    expect(classify([])).toMatchObject({ kind: 'invalid', code: -32600 });
    expect(classify({ jsonrpc: '2.0', id: {}, method: 'x' })).toMatchObject({ kind: 'invalid', code: -32600 });
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'x', params: [] })).toMatchObject({
      kind: 'invalid',
      code: -32602,
    });
  });
});

describe('JSON-RPC envelope texts (specs/platform.yaml protocolErrors)', () => {
  it('classify refuses malformed messages with the spec texts', () => {
    const message = (body: unknown) => (classify(body) as { message?: string }).message;
    expect(message([])).toBe('Batch requests are not supported: send one JSON-RPC message per POST.');
    expect(message('ping')).toBe('The body must be a JSON-RPC 2.0 message object.');
    expect(message({ id: 1, method: 'ping' })).toBe('jsonrpc must be "2.0".');
    expect(message({ jsonrpc: '2.0', id: 1 })).toBe('A JSON-RPC request needs a string method.');
    expect(message({ jsonrpc: '2.0', id: null, method: 'ping' })).toBe('The id must be a string or a number.');
    expect(message({ jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' })).toBe('params must be an object.');
  });

  it('protocolText fills in parameters', () => {
    expect(protocolText('method_not_found', { method: 'resources/list' })).toBe('Method not found: resources/list');
    expect(protocolText('internal_error')).toBe('Internal error.');
  });
});

describe('MCP method map (runtime/mcp/methods.ts)', () => {
  const unused = {} as never;

  it('serves initialize, ping, tools/list and tools/call to 2025, server/discover, list and call to 2026-07-28', () => {
    const methods = createMethods(unused, unused, unused);
    expect([...methods.legacy.keys()].sort()).toEqual(['initialize', 'ping', 'tools/call', 'tools/list']);
    expect([...methods.modern.keys()].sort()).toEqual(['server/discover', 'tools/call', 'tools/list']);
  });

  it('dispatches by method name; an unknown method is "method not found" with the request id', async () => {
    const methods = new Map([['ping', (r: { id: string | number }) => resultJson(r.id, '{}')]]);
    const request = {
      id: 7,
      params: {},
      reqId: 'r',
      signal: () => new AbortController().signal,
      endpoint: unused,
      identity: unused,
      selection: EVERY_TOOL,
    };
    expect(await dispatch(methods, 'ping', request)).toBe('{"jsonrpc":"2.0","id":7,"result":{}}');
    expect(JSON.parse(String(await dispatch(methods, 'resources/list', request)))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32601, message: 'Method not found: resources/list' },
    });
  });
});
