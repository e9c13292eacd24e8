// Derived from the committed catalog, with spot checks against ../shared/spec.
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/golden.ts';

interface Arg {
  name: string;
  type: string;
  required: boolean;
  default?: unknown;
  constraints: string;
}
interface Tool {
  name: string;
  servedAs: string;
  title: string;
  system: boolean;
  write: boolean;
  annotations: Record<string, boolean>;
  arguments: Arg[];
  errors: string[];
}
interface Connector {
  key: string;
  defaultId: string;
  toolCount: number;
  connectAccount: boolean;
  tools: Tool[];
}
const catalog = JSON.parse(readFileSync(`${ROOT}/generated/catalog.json`, 'utf8')) as {
  summary: Record<string, number>;
  connectors: Connector[];
};
const descriptors = await import('../generated/registry.ts');

const connector = (key: string) => catalog.connectors.find((c) => c.key === key)!;
const tool = (key: string, name: string) => connector(key).tools.find((t) => t.name === name)!;
const arg = (key: string, name: string, argument: string) =>
  tool(key, name).arguments.find((a) => a.name === argument)!;
const inputSchema = (key: string, name: string) =>
  descriptors.registry[key as keyof typeof descriptors.registry].descriptor.tools.find((t) => t.name === name)!
    .inputSchema as {
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
  };

describe('tool catalog', () => {
  it('states the MCP revisions the runtime serves, newest first', async () => {
    const { MCP_REVISIONS } = await import('../codegen/emit/catalog.ts');
    const { ALL_PROTOCOL_VERSIONS } = await import('../runtime/mcp/revision.ts');
    expect(MCP_REVISIONS.map((r) => r.version)).toEqual(ALL_PROTOCOL_VERSIONS);
    expect(readFileSync(`${ROOT}/generated/CATALOG.md`, 'utf8')).toContain(
      'speaks MCP `2026-07-28`, `2025-11-25`, `2025-06-18`, `2025-03-26`',
    );
  });

  it('holds every tool of specs/*.yaml, plus connect_account where a connector lists it', () => {
    // Derived from the YAML, so a new connector or tool needs no edit here.
    const specs = readdirSync(`${ROOT}/specs`)
      .filter((f) => f.endsWith('.yaml') && f !== 'platform.yaml')
      .map((f) => ({
        key: f.slice(0, -5),
        spec: parse(readFileSync(`${ROOT}/specs/${f}`, 'utf8')) as {
          connector: { connectAccount?: boolean };
          tools: unknown[];
        },
      }));
    const tools = specs.reduce((n, s) => n + s.spec.tools.length, 0);
    const withConnect = specs
      .filter((s) => s.spec.connector.connectAccount)
      .map((s) => s.key)
      .sort();
    expect(catalog.summary).toEqual({ connectors: specs.length, tools, entries: tools + withConnect.length });
    expect(Object.fromEntries(catalog.connectors.map((c) => [c.key, c.toolCount]))).toEqual(
      Object.fromEntries(specs.map((s) => [s.key, s.spec.tools.length])),
    );
    expect(
      catalog.connectors
        .filter((c) => c.tools.some((t) => t.name === 'connect_account'))
        .map((c) => c.key)
        .sort(),
    ).toEqual(withConnect);
    expect(catalog.connectors.reduce((n, c) => n + c.tools.length, 0)).toBe(tools + withConnect.length);
  });

  it('serves every tool under a valid name of at most 64 characters, even on instance -99', () => {
    for (const c of catalog.connectors) {
      for (const t of c.tools) {
        if (t.system) continue;
        const full = `${c.defaultId}-99__${t.name}`;
        expect(full.length, full).toBeLessThanOrEqual(64);
        expect(full).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(t.servedAs).toBe(`${c.defaultId}__${t.name}`);
      }
    }
  });

  it('gives every tool a title, and the annotations of DECISIONS §3', () => {
    const writes: string[] = [];
    for (const c of catalog.connectors) {
      for (const t of c.tools) {
        expect(t.title.length, t.name).toBeGreaterThan(2);
        if (t.write) {
          writes.push(`${c.key}.${t.name}`);
          expect(t.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: false, idempotentHint: false });
          expect(t.annotations.destructiveHint).toBe(t.name === 'update_customer');
        } else {
          expect(t.annotations, t.name).toEqual({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
        }
      }
    }
    expect(writes.sort()).toEqual([
      'invoicing.create_customer',
      'invoicing.create_draft_invoice',
      'invoicing.duplicate_invoice',
      'invoicing.update_customer',
    ]);
    for (const w of writes)
      expect(arg('invoicing', w.split('.')[1]!, 'confirm')).toMatchObject({
        type: 'boolean',
        required: false,
        default: false,
      });
  });

  it('matches the spec on spot checks', () => {
    expect(arg('cases', 'list_cases', 'limit')).toMatchObject({
      type: 'integer',
      required: false,
      default: 50,
      constraints: '1–200',
    });
    expect(arg('cases', 'list_cases', 'orderBy')).toMatchObject({ default: 'updatedAt', type: '"updatedAt" | "id"' });
    expect(arg('cases', 'find_cases', 'maxPages')).toMatchObject({ default: 3, constraints: '1–5' });
    expect(arg('cases', 'list_case_hours', 'maxRows')).toMatchObject({ default: 500, constraints: '1–2000' });
    expect(arg('cases', 'introspect_schema', 'limit')).toMatchObject({ default: 25, constraints: '1–100' });
    expect(arg('cases', 'describe_type', 'limit')).toMatchObject({ default: 60, constraints: '1–200' });
    expect(arg('erp', 'query_entity', 'pageSize')).toMatchObject({ default: 50, constraints: '1–500' });
    expect(arg('erp', 'query_entity', 'filter').constraints).toContain('length 1–1000');
    expect(inputSchema('erp', 'query_entity').required).toEqual(expect.arrayContaining(['companyId', 'entity']));
    expect(arg('erp', 'list_companies', 'environment')).toMatchObject({ default: 'Production' });
    expect(arg('search', 'top_queries', 'limit')).toMatchObject({ default: 10, constraints: '1–25000' });
    expect(arg('books', 'get_account_balance', 'accountNumbers')).toMatchObject({
      type: 'integer[]',
      required: true,
      constraints: 'items 1–20',
    });
    expect(arg('books', 'get_contact_state_of_account', 'maxEntries').constraints).toBe('1–500');
    expect(arg('books', 'list_chart_of_accounts', 'pageSize')).toMatchObject({ default: 100 });
    expect(arg('books', 'list_invoices', 'pageSize')).toMatchObject({ default: 20 });
    expect(arg('books', 'list_invoices', 'status').type).toBe('"Draft" | "Booked" | "Paid" | "OverPaid" | "Overdue"');
    expect(arg('invoicing', 'list_customers', 'pagesize')).toMatchObject({ default: 20 });
    expect(arg('invoicing', 'list_customers', 'skippages')).toMatchObject({ default: 0 });
    expect(arg('ledger', 'aggregate', 'groupBy')).toMatchObject({
      type: 'string[]',
      default: [],
      constraints: 'items ≤ 3',
    });
    expect(arg('ledger', 'aggregate', 'sum')).toMatchObject({ default: [], constraints: 'items ≤ 10' });
    expect(arg('ledger', 'aggregate', 'dateField')).toMatchObject({ default: 'Date' });
    expect(arg('ledger', 'list_debtors', 'limit')).toMatchObject({ default: 50, constraints: '1–1000' });
    expect(arg('ledger', 'list_inventory_items', 'sortDescending')).toMatchObject({ default: true });
    expect(arg('register', 'soeg_virksomhed', 'size')).toMatchObject({ default: 10, constraints: '1–50' });
    expect(arg('register', 'find_produktionsenheder', 'size')).toMatchObject({ default: 50 });
    expect(arg('cases', 'get_case_work_summary', 'from')).toMatchObject({ default: '2000-01-01' });
  });

  it('publishes cvrNummer as 8 digits that may come as a numeric string', () => {
    const cvr = inputSchema('register', 'hent_virksomhed').properties.cvrNummer!;
    expect(cvr).toMatchObject({ type: ['integer', 'string'], minimum: 10000000, maximum: 99999999 });
  });

  it('closes every input schema, so unknown arguments are refused', () => {
    for (const { descriptor } of Object.values(descriptors.registry)) {
      for (const t of descriptor.tools) expect(t.inputSchema.additionalProperties, t.name).toBe(false);
    }
  });
});
