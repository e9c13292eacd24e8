// Spec texts name tools by reference (`{{tool:describe_type}}`), rendered per endpoint instance
// with the names its clients call (docs/decisions/codegen-and-catalog.md, 'Spec texts name tools by reference, rendered
// per endpoint'): the generator's checks (SPEC038/SPEC039),
// the codemod that converts bare names, the catalog's default-id rendering, and the runtime's
// tools/list, instructions and error/note texts of a `-2` instance.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixReferences } from '../codegen/fix-references.ts';
import { checkSpecs } from '../codegen/generate.ts';
import { parseSpec } from '../codegen/load.ts';
import { findBareNames, resolveReferences } from '../codegen/references.ts';
import { casesDescriptor } from '../generated/cases/descriptor.ts';
import { erpDescriptor } from '../generated/erp/descriptor.ts';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { registry } from '../generated/registry.ts';
import { renderToolReferences } from '../runtime/gateway-context.ts';
import { ConnectorTexts } from '../runtime/pipeline/call-context.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { DIAGNOSTIC_FIXTURES } from './support/diagnostics-fixture.ts';
import { createTenant, mcpClient, rpc, type StartedGateway } from './support/gateway.ts';
import { gatewayForSuite } from './support/suite-gateway.ts';

const ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const scope = (tools: string[], system: string[] = ['connect_account']) => ({
  tools: new Map(tools.map((t) => [t, new Set(['limit'])])),
  systemTools: new Map(system.map((t) => [t, new Set<string>()])),
});

describe('finding tools named without a reference', () => {
  const demo = scope(['list_things', 'get_thing', 'query']);
  const names = (text: string) => findBareNames(text, demo).map((h) => `${h.prefix}${h.name}`);

  it('finds a name with an underscore anywhere, bare or with an id written out, but not inside a reference', () => {
    expect(names('Use list_things, then get_thing (or demo-2__get_thing).')).toEqual([
      'list_things',
      'get_thing',
      'demo-2__get_thing',
    ]);
    expect(names('Use {{tool:list_things}} first; {{arg:list_things.limit}} rows.')).toEqual([]);
    expect(names('list_thingsX, my_list_things and list_things_all are other words')).toEqual([]);
  });

  it('finds a one-word name only where it cannot be an English word', () => {
    expect(names('The query is sent as written; use query for the rest.')).toEqual([]);
    expect(names('Call query, or the query tool, or `query`, or demo__query.')).toEqual([
      'query',
      'query',
      'query',
      'demo__query',
    ]);
  });
});

describe('resolving references for the descriptor', () => {
  it('keeps a connector tool for the endpoint, and resolves arguments and system tools', () => {
    expect(
      resolveReferences(
        'Use {{tool:get_thing}}, lower {{arg:limit}} or {{arg:get_thing.limit}}; {{tool:connect_account}}.',
        scope(['get_thing']),
      ),
    ).toBe('Use {{tool:get_thing}}, lower limit or limit; connect_account.');
  });
});

describe('the specs', () => {
  it('name no tool without a reference, and every reference resolves', () => {
    const { diagnostics } = checkSpecs(join(ROOT, 'specs'), ROOT);
    expect(diagnostics.filter((d) => d.code === 'SPEC038' || d.code === 'SPEC039')).toEqual([]);
  });

  it('generated/CATALOG.md and catalog.json name sibling tools as the default endpoint serves them, never bare', () => {
    const catalog = JSON.parse(readFileSync(join(ROOT, 'generated/catalog.json'), 'utf8')) as {
      connectors: Array<{ defaultId: string; tools: Array<{ name: string; system: boolean }>; [key: string]: unknown }>;
    };
    const markdown = readFileSync(join(ROOT, 'generated/CATALOG.md'), 'utf8');
    expect(markdown).not.toContain('{{');
    let served = 0;
    for (const connector of catalog.connectors) {
      const s = scope(
        connector.tools.filter((t) => !t.system).map((t) => t.name),
        [],
      );
      const texts: string[] = [];
      const collect = (value: unknown, key?: string): void => {
        if (typeof value === 'string' && key !== 'name' && key !== 'servedAs' && key !== 'defaultId') texts.push(value);
        else if (Array.isArray(value)) for (const v of value) key === 'errors' ? undefined : collect(v);
        else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) collect(v, k);
      };
      collect(connector);
      for (const text of texts) {
        expect(text).not.toContain('{{');
        for (const hit of findBareNames(text, s)) {
          expect(`${hit.prefix}${hit.name}`, text).toBe(`${connector.defaultId}__${hit.name}`);
          served++;
        }
      }
    }
    // The issue counted 93 bare names in tool descriptions alone; instructions and texts add more.
    expect(served).toBeGreaterThan(150);
    expect(markdown).toContain('then cases__describe_type, then cases__graphql_query');
  });
});

describe('per endpoint instance', () => {
  it('renders a text once per instance, and leaves a text without references as it is', () => {
    const plain = 'No references here.';
    expect(renderToolReferences(plain, 'cases-2')).toBe(plain);
    expect(renderToolReferences('{{tool:a}} and {{tool:b_c}}', 'x-3')).toBe('x-3__a and x-3__b_c');
  });

  it("an instance's error and note texts name tools as its clients call them", () => {
    const erp3 = new ConnectorTexts(erpDescriptor, platformDescriptor, 'erp-3');
    expect(erpDescriptor.errors.not_found_404.text).toContain('{{tool:list_companies}}');
    expect(erp3.render('not_found_404', {})).toContain('erp-3__list_companies');
    expect(erp3.render('not_found_404', {})).not.toContain('{{');
    expect(new ConnectorTexts(erpDescriptor, platformDescriptor).render('not_found_404', {})).toContain(
      'erp__list_companies',
    );
    const cases2 = new ConnectorTexts(casesDescriptor, platformDescriptor, 'cases-2');
    expect(cases2.note('findCasesTruncated', { scanned: 600, pages: 3 })).toContain(
      'page through cases-2__list_cases.',
    );
    // A parameter value is never searched for references.
    expect(cases2.render('upstream_validation', { field: '{{tool:describe_type}}', messages: 'x' })).toContain(
      '{{tool:describe_type}}',
    );
  });

  it('every descriptor text that names a tool names one of its own connector', () => {
    for (const [key, { descriptor }] of Object.entries(registry)) {
      const own = new Set(descriptor.tools.map((t) => t.name));
      const all = JSON.stringify(descriptor);
      for (const m of all.matchAll(/\{\{tool:([A-Za-z0-9_-]+)\}\}/g))
        expect(own.has(m[1]!), `${key}: ${m[1]}`).toBe(true);
    }
  });
});

describe('a cases-2 endpoint, over HTTP', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  gatewayForSuite((started) => ({ store, gw } = started));

  it("its tools/list and instructions name cases-2__describe_type, never another instance's or bare", async () => {
    const t = await createTenant(store, { subscribe: ['cases'] });
    await gw.app.context.state.refresh();
    const client = await mcpClient(gw.url, 'cases-2', t.token);
    try {
      const instructions = client.getInstructions() ?? '';
      expect(instructions).toContain('then cases-2__describe_type, then cases-2__graphql_query');
      expect(instructions).toContain('call connect_account');
      const { tools } = await client.listTools();
      const introspect = tools.find((x) => x.name === 'cases-2__introspect_schema');
      expect(introspect?.description).toContain('then cases-2__describe_type, then cases-2__graphql_query');
      const listed = JSON.stringify(tools);
      expect(listed).not.toContain('{{');
      expect(listed).not.toMatch(/(?<![-\w])cases__/);
      for (const tool of tools)
        for (const hit of findBareNames(tool.description ?? '', scope(casesDescriptor.tools.map((x) => x.name))))
          expect(hit.prefix).toBe('cases-2__');
    } finally {
      await client.close();
    }
    // The default instance, on the same gateway, keeps its own names.
    const list = await rpc(gw.url, 'cases', t.token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(list.text).toContain('then cases__describe_type');
    expect(list.text).not.toContain('cases-2__');
  });
});

describe('--fix-references', () => {
  it('rewrites every SPEC039 reference, quoting a plain text starting with `{`; the file then checks', () => {
    const root = mkdtempSync(join(tmpdir(), 'fix-references-'));
    try {
      const specs = join(root, 'specs');
      mkdirSync(specs);
      cpSync(join(DIAGNOSTIC_FIXTURES, 'SPEC039/demo.yaml'), join(specs, 'demo.yaml'));
      cpSync(join(DIAGNOSTIC_FIXTURES, '_platform.yaml'), join(specs, 'platform.yaml'));
      const before = checkSpecs(specs, root).diagnostics.filter((d) => d.code === 'SPEC039').length;
      expect(before).toBe(6);
      expect(fixReferences(specs, root)).toEqual([{ file: 'specs/demo.yaml', count: 8 }]);
      expect(checkSpecs(specs, root).diagnostics).toEqual([]);
      const fixed = readFileSync(join(specs, 'demo.yaml'), 'utf8');
      const data = parseSpec(fixed, 'specs/demo.yaml').source.data as {
        connector: { errors: { gone: { when: string } }; description: string };
      };
      expect(data.connector.errors.gone.when).toBe('{{tool:get_thing}} for an unknown id.');
      expect(data.connector.description).toContain(
        'the {{tool:query}} tool takes a filter, and `{{tool:query}}` is its name',
      );
      expect(data.connector.description).toContain('Use query for anything else');
      // Converted once, nothing is left to do.
      expect(fixReferences(specs, root)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
