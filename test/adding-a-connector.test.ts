// docs/adding-a-connector.md, kept honest: the example connector in test/fixtures/example-connector
// (its spec, its handlers, its sandbox — nothing else) is generated, type-checked with the project
// (tsc covers test/**), served by the unchanged runtime and called by the official SDK Client.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv, sandboxTenantCredentials } from '../bin/demo.ts';
import { run } from '../codegen/main.ts';
import { loadConfig } from '../runtime/config/config.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { registry as exampleRegistry } from './fixtures/example-connector/generated/registry.ts';
import { sandbox } from './fixtures/example-connector/sandbox/example/index.ts';
import {
  createTenant,
  mcpClient,
  reconnectParts,
  resultJson,
  resultText,
  startGateway,
  TEST_SECRET,
  type StartedGateway,
  type Tenant,
  connectTenant,
} from './support/gateway.ts';
import { ROOT } from './support/golden.ts';
import type { SandboxSet } from '../sandbox/index.ts';

const FIXTURE = join(ROOT, 'test/fixtures/example-connector');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [relative(FIXTURE, full)];
  });
}

describe('adding a connector (docs/adding-a-connector.md)', () => {
  let store: PlatformStore;
  let sandboxes: SandboxSet;
  let gw: StartedGateway;
  let tenant: Tenant;
  let client: Client;

  beforeAll(async () => {
    store = await openStore({});
    const running = await sandbox.start({ host: '127.0.0.1', port: 0 });
    sandboxes = { started: new Map([[sandbox.connector, { sandbox, running }]]), close: () => running.close() };
    // The same composition as `npm start`: configuration from the registry and the sandbox's URL.
    const config = {
      ...loadConfig(exampleRegistry, {
        DATA_DIR: '/tmp/cg-test-unused',
        LOG_LEVEL: 'silent',
        ...sandboxEnv(sandboxes),
      }),
      secretKeys: TEST_SECRET,
    };
    gw = await startGateway(store, { config, registry: exampleRegistry, logger: pino({ level: 'silent' }) });
    tenant = await createTenant(store, { subscribe: ['example'] });
    await connectTenant(gw, tenant, 'example', sandboxTenantCredentials(sandboxes).example!);
    client = await mcpClient(gw.url, 'example', tenant.token);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await sandboxes?.close();
    await store?.close();
  });

  it("touches only its spec, its handlers and its sandbox (generated/ is the generator's)", () => {
    const written = files(FIXTURE).filter((f) => !f.startsWith('generated/'));
    expect(written.sort()).toEqual([
      'handlers/example/client.ts',
      'handlers/example/get-item.ts',
      'handlers/example/search-items.ts',
      'sandbox/example/index.ts',
      'sandbox/example/server.ts',
      'specs/example.yaml',
      'specs/platform.yaml',
    ]);
  });

  it('keeps generated/ in sync with its spec (codegen --check)', async () => {
    const errors: string[] = [];
    expect(
      await run(
        ['--check', '--root', FIXTURE],
        () => {},
        (line) => errors.push(line),
      ),
      errors.join('\n'),
    ).toBe(0);
  });

  it('is the walk-through the guide describes: every file it names exists', () => {
    const guide = readFileSync(join(ROOT, 'docs/adding-a-connector.md'), 'utf8');
    const named = [...guide.matchAll(/test\/fixtures\/example-connector\/([\w./-]+\.(?:ts|yaml))/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(4);
    for (const path of named) expect(files(FIXTURE), path).toContain(path);
  });

  it('is served by the unchanged runtime: tools/list through the SDK Client, then both tools', async () => {
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name).sort()).toEqual([
      'connect_account',
      'example__get_item',
      'example__search_items',
    ]);
    const found = resultJson(await client.callTool({ name: 'example__search_items', arguments: { query: 'oak' } }));
    expect(found).toEqual({
      total: 2,
      items: [
        { id: 1, name: 'Oak desk', stock: 4 },
        { id: 2, name: 'Oak shelf', stock: 0 },
      ],
    });
    expect(resultJson(await client.callTool({ name: 'example__get_item', arguments: { id: '3' } }))).toEqual({
      id: 3,
      name: 'Steel chair',
      stock: 12,
    });
  });

  it('answers with its spec texts', async () => {
    const missing = await client.callTool({ name: 'example__get_item', arguments: { id: 99 } });
    expect(missing.isError).toBe(true);
    expect(resultText(missing)).toBe('Stockly has no item 99.');
    const refused = await client.callTool({ name: 'example__search_items', arguments: { query: '' } });
    expect(resultText(refused)).toBe('Tool invocation failed.');
  });

  it("answers an upstream failure the handler lets through with the spec's text (upstream: [auth])", async () => {
    const other = await createTenant(store, { subscribe: ['example'] });
    await connectTenant(gw, other, 'example', { apiKey: 'revoked-key' });
    const otherClient = await mcpClient(gw.url, 'example', other.token);
    const rejected = await otherClient.callTool({ name: 'example__search_items', arguments: { query: 'oak' } });
    await otherClient.close();
    expect(rejected.isError).toBe(true);
    // One text block: the spec's text, then (a `reconnect: true` text) the instruction with a connect link.
    const { text, link } = reconnectParts(rejected);
    expect(text).toBe(
      'Stockly rejected the API key. Reconnect with a valid key: call connect_account to get the link.',
    );
    expect(link).toMatch(/\/portal\/connect\/\S+$/);
  });
});
