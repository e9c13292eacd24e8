// The ahead-of-time validators enforce the spec's bounds, formats, defaults and coercion.
import { describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { checkArguments } from '../runtime/pipeline/arguments.ts';
import type { ConnectorKey } from '../generated/registry.ts';

function check(key: ConnectorKey, tool: string, args: unknown) {
  const { descriptor, validators } = registry[key];
  const t = descriptor.tools.find((x) => x.name === tool)!;
  return checkArguments(t, (validators as unknown as Record<string, never>)[`input_${tool}`]!, args);
}

describe('generated validators', () => {
  it('fills defaults and keeps the caller object unchanged', () => {
    const raw = {};
    const r = check('cases', 'list_cases', raw);
    expect(r).toEqual({ ok: true, args: { limit: 50, orderBy: 'updatedAt', direction: 'DESC' } });
    expect(raw).toEqual({});
  });

  it('works on a deep copy: nested defaults never reach the caller object; a JSON `__proto__` stays data', () => {
    const body = { startDate: '2024-01-01', endDate: '2024-01-31', dimensions: ['query'] };
    const raw = { siteUrl: 'sc-domain:example.com', requestBody: body };
    const r = check('search', 'search_analytics_query', raw);
    expect(r.ok).toBe(true);
    expect(raw.requestBody).toBe(body);
    expect(body).toEqual({ startDate: '2024-01-01', endDate: '2024-01-31', dimensions: ['query'] });
    // As JSON.parse makes it: an own property named __proto__, which must not become the prototype.
    const hostile = JSON.parse('{"__proto__":{"polluted":true},"limit":5}') as Record<string, unknown>;
    const refused = check('cases', 'list_cases', hostile);
    expect(refused.ok).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(hostile)).toBe(Object.prototype);
  });

  it('refuses values outside the spec', () => {
    expect(check('cases', 'list_cases', { limit: 201 }).ok).toBe(false);
    expect(check('cases', 'list_cases', { limit: 0 }).ok).toBe(false);
    expect(check('cases', 'list_cases', { limit: '50' }).ok).toBe(false);
    expect(check('cases', 'list_cases', { cursor: '' }).ok).toBe(false);
    expect(check('cases', 'get_case', { id: -3 }).ok).toBe(false);
    expect(check('cases', 'get_case', { id: 1.5 }).ok).toBe(false);
    expect(check('cases', 'list_case_hours', { caseId: 1, from: '2024-13-01' }).ok).toBe(false);
    expect(check('cases', 'list_case_hours', { caseId: 1, from: '2024-02-30' }).ok).toBe(false);
    expect(check('cases', 'list_case_hours', { caseId: 1, from: '2024-2-3' }).ok).toBe(false);
    expect(check('cases', 'list_case_hours', { caseId: 1, from: '2024-02-29' }).ok).toBe(true);
    expect(check('erp', 'query_entity', { companyId: 'not-a-guid', entity: 'customers' }).ok).toBe(false);
    expect(
      check('erp', 'query_entity', {
        companyId: '6f1e7c0e-3b7a-4c1f-9a55-1f0a2b3c4d5e',
        entity: 'customers',
        pageSize: 501,
      }).ok,
    ).toBe(false);
    expect(
      check('books', 'get_account_balance', { organizationId: 1, accountingYear: '2024', accountNumbers: [] }).ok,
    ).toBe(false);
    expect(check('ledger', 'aggregate', { entity: 'GLTransClient', groupBy: ['a', 'b', 'c', 'd'] }).ok).toBe(false);
    expect(check('register', 'soeg_virksomhed', { query: 'x', size: 51 }).ok).toBe(false);
  });

  it('refuses unknown arguments and non-object arguments', () => {
    expect(check('cases', 'list_cases', { limt: 5 }).ok).toBe(false);
    expect(check('cases', 'list_cases', [1]).ok).toBe(false);
    expect(check('cases', 'list_cases', 'x').ok).toBe(false);
    expect(check('cases', 'list_cases', undefined).ok).toBe(true);
  });

  it('coerces a numeric-string cvrNummer and still checks its 8 digits', () => {
    expect(check('register', 'hent_virksomhed', { cvrNummer: '12345678' })).toEqual({
      ok: true,
      args: { cvrNummer: 12345678 },
    });
    expect(check('register', 'hent_virksomhed', { cvrNummer: 12345678 })).toEqual({
      ok: true,
      args: { cvrNummer: 12345678 },
    });
    expect(check('register', 'hent_virksomhed', { cvrNummer: '1234567' }).ok).toBe(false);
    expect(check('register', 'hent_virksomhed', { cvrNummer: '12a45678' }).ok).toBe(false);
  });

  it("accepts the search requestBody only with the upstream's known fields (DECISIONS §18)", () => {
    const body = { startDate: '2024-01-01', endDate: '2024-01-31', dimensions: ['query'], rowLimit: 25000 };
    expect(check('search', 'search_analytics_query', { siteUrl: 'sc-domain:example.com', requestBody: body }).ok).toBe(
      true,
    );
    expect(
      check('search', 'search_analytics_query', {
        siteUrl: 'sc-domain:example.com',
        requestBody: { ...body, rowLimit: 25001 },
      }).ok,
    ).toBe(false);
    expect(
      check('search', 'search_analytics_query', {
        siteUrl: 'sc-domain:example.com',
        requestBody: { ...body, searchType: 'web' },
      }).ok,
    ).toBe(false);
  });
});
