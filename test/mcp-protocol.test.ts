// The gateway keeps the MCP constants it needs at start-up itself (the SDK's runtime module loads
// every zod schema); this keeps them in step with the SDK the clients use.
import { ErrorCode as SdkErrorCode, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ErrorCode, LATEST, SERVED_PROTOCOL_VERSIONS, classify, negotiateVersion } from '../runtime/mcp/protocol.ts';

describe('MCP protocol constants', () => {
  it('match the SDK', () => {
    for (const [name, code] of Object.entries(ErrorCode)) expect(SdkErrorCode[name as keyof typeof SdkErrorCode], name).toBe(code);
    expect(LATEST).toBe(LATEST_PROTOCOL_VERSION);
    for (const v of SERVED_PROTOCOL_VERSIONS) expect(SUPPORTED_PROTOCOL_VERSIONS).toContain(v);
  });

  it('negotiates and classifies', () => {
    expect(negotiateVersion('2025-06-18')).toBe('2025-06-18');
    expect(negotiateVersion('2024-11-05')).toBe(LATEST);
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'ping' })).toMatchObject({ kind: 'request', id: 1, method: 'ping' });
    expect(classify({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({ kind: 'notification', method: 'notifications/initialized' });
    expect(classify({ jsonrpc: '2.0', id: 1, result: {} })).toEqual({ kind: 'response' });
    expect(classify([])).toMatchObject({ kind: 'invalid', code: -32600 });
    expect(classify({ jsonrpc: '2.0', id: {}, method: 'x' })).toMatchObject({ kind: 'invalid', code: -32600 });
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'x', params: [] })).toMatchObject({ kind: 'invalid', code: -32602 });
  });
});
