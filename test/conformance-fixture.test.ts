// The conformance fixture connector (test/fixtures/conformance-connector) end to end: the official 2.x
// client (@modelcontextprotocol/client, pinned to 2026-07-28) with elicitation, sampling, roots and
// progress handlers resolves the fixture tools' input_required rounds through its handlers
// (runtime/pipeline/call-input.ts); the official 1.x client (2025-06-18) sees progress, and, having
// declared elicitation, is asked on the call's stream by the gateway, round after round (those
// revisions have no retry channel); nothing else can be asked there. Raw 2026 requests show what the client
// cannot do: an altered requestState and malformed inputResponses are refused (-32602) unmetered.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../codegen/main.ts';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { type FixtureGateway, startFixtureGateway } from './support/conformance-fixture.ts';
import { resultText, rpc, usageOf } from './support/gateway.ts';
import { ROOT } from './support/golden.ts';

const MODERN = '2026-07-28';

describe('the conformance fixture connector through the official clients', () => {
  let store: PlatformStore;
  let fx: FixtureGateway;
  const tool = (name: string) => `${fx.instanceId}__${name}`;
  const url = () => new URL(`${fx.gateway.url}/${fx.instanceId}/mcp`);
  const auth = () => ({ requestInit: { headers: { authorization: `Bearer ${fx.tenant.token}` } } });

  beforeAll(async () => {
    store = await openStore({});
    fx = await startFixtureGateway(store, { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_SECOND: '10000' });
  }, 60_000);
  afterAll(async () => {
    await fx?.gateway.close();
    await store?.close();
  });

  it('keeps its generated/ in sync with its spec (codegen --check --root)', async () => {
    const errors: string[] = [];
    const code = await run(
      ['--check', '--root', join(ROOT, 'test/fixtures/conformance-connector')],
      () => {},
      (line) => errors.push(line),
    );
    expect(code, errors.join('\n')).toBe(0);
  });

  /** A 2.x client answering every kind of input request, recording what it was asked. */
  async function modern(asked: string[]): Promise<ModernClient> {
    const client = new ModernClient(
      { name: 'fixture-2x', version: '2.0.0' },
      {
        capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
        versionNegotiation: { mode: { pin: MODERN } },
      },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      const message = (request.params as { message: string }).message;
      asked.push(`elicitation: ${message}`);
      const content: Record<string, string> = message.includes('color') ? { color: 'blue' } : { name: 'Alice' };
      return { action: 'accept', content };
    });
    client.setRequestHandler('sampling/createMessage', async () => {
      asked.push('sampling');
      return { role: 'assistant', content: { type: 'text', text: 'Hi there' }, model: 'test', stopReason: 'endTurn' };
    });
    client.setRequestHandler('roots/list', async () => {
      asked.push('roots');
      return { roots: [{ uri: 'file:///work', name: 'work' }] };
    });
    await client.connect(new ModernTransport(url(), auth()));
    return client;
  }

  it('2.x: two rounds of elicitation, answered by the handler, end in one result', async () => {
    const asked: string[] = [];
    const client = await modern(asked);
    try {
      const result = await client.callTool({ name: tool('test_input_required_result_multi_round'), arguments: {} });
      expect(result.isError ?? false).toBe(false);
      expect(resultText(result)).toBe(JSON.stringify({ text: 'Alice likes blue.' }));
      expect(asked).toEqual([
        'elicitation: Step 1: What is your name?',
        'elicitation: Step 2: What is your favorite color?',
      ]);
    } finally {
      await client.close();
    }
  });

  it('2.x: elicitation, sampling and roots asked at once, each handler once', async () => {
    const asked: string[] = [];
    const client = await modern(asked);
    try {
      const result = await client.callTool({ name: tool('test_input_required_result_multiple_inputs'), arguments: {} });
      expect(resultText(result)).toBe(
        JSON.stringify({ text: 'Hello, Alice! Greeting: Hi there. Roots: file:///work' }),
      );
      expect([...asked].sort()).toEqual(['elicitation: What is your name?', 'roots', 'sampling']);
    } finally {
      await client.close();
    }
  });

  it('2.x and 1.x: progress reaches the onprogress handler, growing, then the result', async () => {
    const client = await modern([]);
    const legacy = new Client({ name: 'fixture-1x', version: '1.0.0' });
    await legacy.connect(new StreamableHTTPClientTransport(url(), auth()));
    try {
      const seen: number[] = [];
      const result = await client.callTool({ name: tool('test_tool_with_progress'), arguments: {} }, {
        onprogress: (p: { progress: number }) => seen.push(p.progress),
      } as never);
      expect(resultText(result)).toBe(JSON.stringify({ text: 'Progress reported in 3 steps.' }));
      expect(seen).toEqual([1, 2, 3]);
      const legacySeen: number[] = [];
      await legacy.callTool({ name: tool('test_tool_with_progress'), arguments: {} }, undefined, {
        onprogress: (p) => legacySeen.push(p.progress),
      });
      expect(legacySeen).toEqual([1, 2, 3]);
    } finally {
      await client.close();
      await legacy.close();
    }
  });

  /** A 1.x client (2025-06-18), with an elicitation handler when `answer` is given, recording what it was asked. */
  async function legacyClient(asked: string[], answer?: (message: string) => Record<string, string>) {
    const client = new Client(
      { name: 'fixture-1x', version: '1.0.0' },
      answer ? { capabilities: { elicitation: {} } } : {},
    );
    if (answer)
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message);
        return { action: 'accept', content: answer(request.params.message) };
      });
    await client.connect(new StreamableHTTPClientTransport(url(), auth()));
    return client;
  }

  it('1.x (2025-06-18): the gateway asks on the call stream, round after round, and answers once', async () => {
    const asked: string[] = [];
    const answer = (message: string): Record<string, string> =>
      message.includes('color') ? { color: 'red' } : { name: 'Bo' };
    const legacy = await legacyClient(asked, answer);
    try {
      const result = await legacy.callTool({ name: tool('test_input_required_result_multi_round'), arguments: {} });
      expect(resultText(result)).toBe(JSON.stringify({ text: 'Bo likes red.' }));
      expect(asked).toEqual(['Step 1: What is your name?', 'Step 2: What is your favorite color?']);
      // Sampling cannot be asked on the 2025 stream: a tool that must sample answers the generic text.
      const sampled = await legacy.callTool({ name: tool('test_input_required_result_sampling'), arguments: {} });
      expect(sampled.isError).toBe(true);
      expect(resultText(sampled)).toBe(platformDescriptor.errors.generic!.text);
      expect(asked).toHaveLength(2);
    } finally {
      await legacy.close();
    }
  });

  it('1.x (2025-06-18) without the elicitation capability: a tool that must ask answers the generic text', async () => {
    const legacy = await legacyClient([]);
    try {
      const result = await legacy.callTool({ name: tool('test_input_required_result_elicitation'), arguments: {} });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toBe(platformDescriptor.errors.generic!.text);
      // A tool that asks only for what the client declared answers without asking.
      const capabilities = await legacy.callTool({
        name: tool('test_input_required_result_capabilities'),
        arguments: {},
      });
      expect(resultText(capabilities)).toBe(JSON.stringify({ text: 'Hello, !' }));
    } finally {
      await legacy.close();
    }
  });

  /** One raw 2026 tools/call, to hold the requestState in hand. */
  const raw = (name: string, params: Record<string, unknown>, capabilities: object = { elicitation: {} }) =>
    rpc(
      fx.gateway.url,
      fx.instanceId,
      fx.tenant.token,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: tool(name),
          arguments: {},
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': capabilities,
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
          },
        },
      },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': tool(name) },
    );
  const calls = async () => (await usageOf(fx.gateway.url, fx.tenant.token)).usage.totalCalls;

  it('refuses an altered or foreign requestState and malformed inputResponses (-32602), unmetered', async () => {
    const first = (await raw('test_input_required_result_request_state', {})).json as { result: any };
    expect(first.result.resultType).toBe('input_required');
    const state = first.result.requestState as string;
    const ok = { confirm: { action: 'accept', content: { ok: true } } };
    const before = await calls();
    const refusals = [
      await raw('test_input_required_result_request_state', { requestState: `${state}x`, inputResponses: ok }),
      // Sealed for another tool of the same endpoint.
      await raw('test_input_required_result_tampered_state', { requestState: state, inputResponses: ok }),
      await raw('test_input_required_result_request_state', { requestState: state, inputResponses: null }),
    ];
    const texts = platformDescriptor.protocolErrors;
    expect(refusals.map((r) => r.status)).toEqual([400, 400, 400]);
    expect(refusals.map((r) => (r.json as { error: unknown }).error)).toEqual([
      { code: -32602, message: texts.input_state_invalid.text },
      { code: -32602, message: texts.input_state_invalid.text },
      { code: -32602, message: texts.input_responses_invalid.text },
    ]);
    expect(await calls()).toBe(before);
    const done = (await raw('test_input_required_result_request_state', { requestState: state, inputResponses: ok }))
      .json as { result: any };
    expect(done.result.resultType).toBe('complete');
    expect(JSON.parse(done.result.content[0].text).text).toMatch(/^state-ok/);
    expect(await calls()).toBe(before + 1);
  });

  it('asks only for what the client declared (a sampling-only client is asked no elicitation)', async () => {
    const asked = (await raw('test_input_required_result_capabilities', {}, { sampling: {} })).json as {
      result: any;
    };
    expect(asked.result.resultType).toBe('input_required');
    expect(Object.values(asked.result.inputRequests).map((r: any) => r.method)).toEqual(['sampling/createMessage']);
  });

  it('refuses a round for an undeclared capability: HTTP 400, -32021, requiredCapabilities', async () => {
    const before = await calls();
    const refused = await raw('test_missing_capability', {}, { elicitation: {} });
    expect(refused.status).toBe(400);
    expect((refused.json as { error: unknown }).error).toEqual({
      code: -32021,
      message: platformDescriptor.protocolErrors.missing_client_capability.text.replace('{capabilities}', 'sampling'),
      data: { requiredCapabilities: { sampling: {} } },
    });
    // The handler ran before it asked: metered like any call whose handler ran.
    expect(await calls()).toBe(before + 1);
    const asked = (await raw('test_missing_capability', {}, { sampling: {} })).json as { result: any };
    expect(asked.result.resultType).toBe('input_required');
  });
});
