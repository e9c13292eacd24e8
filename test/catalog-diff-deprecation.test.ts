// catalog:diff and deprecations (docs/catalog-diff.md, 'Deprecation and sunset'): deprecating is
// information, a sunset moved earlier dangerous; removing a deprecated tool or argument is
// acknowledged by the deprecation once its sunset has passed (judged on the day given), and is an
// unacknowledged breaking change before. Catalogs: the golden fixture's, changed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../bin/catalog-diff.ts';
import { applyAcknowledgements } from '../codegen/diff/acknowledge.ts';
import type { Catalog } from '../codegen/diff/catalog.ts';
import { diffCatalogs } from '../codegen/diff/classify.ts';
import { catalogTool, goldenCatalog, type Mutable } from './support/golden-catalog.ts';

// The golden fixture's catalog (frozen): get_customer is deprecated here, list_orders' `status` too.
const fresh = (): Mutable => goldenCatalog();
const getCustomer = (c: Mutable) => catalogTool(c, 'get_customer');
const TOOL = { reason: 'Customers move to a search.', replacement: 'demo__list_orders', sunset: '2027-01-31' };
const ARG = { reason: 'Every order is open now.', sunset: '2027-03-31' };

/** The catalog with get_customer and list_orders' `status` deprecated, as codegen writes it. */
function deprecated(): Mutable {
  const c = fresh();
  getCustomer(c).deprecated = TOOL;
  const orders = catalogTool(c, 'list_orders');
  orders.deprecatedArguments = { ...orders.deprecatedArguments, status: ARG };
  orders.input.properties.status.deprecated = true;
  return c;
}

function withoutGetCustomer(c: Mutable): Mutable {
  c.connectors[0].tools = c.connectors[0].tools.filter((t: { name: string }) => t.name !== 'get_customer');
  return c;
}

function withoutStatus(c: Mutable): Mutable {
  const t = catalogTool(c, 'list_orders');
  delete t.input.properties.status;
  delete t.deprecatedArguments.status;
  t.arguments = t.arguments.filter((a: { name: string }) => a.name !== 'status');
  return c;
}

const summary = (changes: ReturnType<typeof diffCatalogs>) =>
  changes.map((c) => ({ id: c.id, severity: c.severity, acknowledged: c.acknowledged !== undefined }));

describe('catalog:diff of deprecations', () => {
  it('reports deprecating a tool and an argument as information, and nothing else', () => {
    const changes = diffCatalogs(fresh(), deprecated(), '2026-11-28');
    expect(summary(changes)).toEqual([
      { id: 'tool-deprecated:demo/get_customer', severity: 'info', acknowledged: false },
      { id: 'argument-deprecated:demo/list_orders/input.status', severity: 'info', acknowledged: false },
    ]);
    expect(changes[0]!.message).toBe(
      'tool get_customer deprecated: Customers move to a search. Use `demo__list_orders` instead. Sunset 2027-01-31.',
    );
  });

  it('reports a sunset moved earlier as dangerous, a later one or a withdrawal as information', () => {
    const earlier = deprecated();
    getCustomer(earlier).deprecated = { ...TOOL, sunset: '2026-12-31' };
    expect(summary(diffCatalogs(deprecated(), earlier, '2026-11-28'))).toEqual([
      { id: 'sunset-advanced:demo/get_customer', severity: 'dangerous', acknowledged: false },
    ]);
    const later = deprecated();
    getCustomer(later).deprecated = { ...TOOL, sunset: '2027-06-30' };
    expect(summary(diffCatalogs(deprecated(), later, '2026-11-28'))[0]).toMatchObject({
      id: 'deprecation-changed:demo/get_customer',
      severity: 'info',
    });
    const ids = diffCatalogs(deprecated(), fresh(), '2026-11-28').map((c) => c.id);
    expect(ids).toEqual([
      'deprecation-withdrawn:demo/get_customer',
      'deprecation-withdrawn:demo/list_orders/input.status',
    ]);
  });

  it('acknowledges removing a deprecated tool after its sunset, and not on or before it', () => {
    const removed = (today: string) =>
      diffCatalogs(deprecated(), withoutGetCustomer(deprecated()), today).find(
        (c) => c.id === 'tool-removed:demo/get_customer',
      )!;
    const after = removed('2027-02-01');
    expect(after).toMatchObject({ severity: 'breaking', code: 'tool-removed' });
    expect(after.acknowledged).toBe('deprecated with sunset 2027-01-31, which has passed: Customers move to a search.');
    expect(applyAcknowledgements([after], []).ok).toBe(true);
    const onTheDay = removed('2027-01-31');
    expect(onTheDay.acknowledged).toBeUndefined();
    expect(onTheDay.message).toBe(
      'tool get_customer removed before its sunset 2027-01-31 (deprecated: Customers move to a search.)',
    );
    expect(applyAcknowledgements([onTheDay], []).ok).toBe(false);
    // A reviewer's entry for it is used, with the reviewer's reason.
    const reviewed = applyAcknowledgements([after], [{ change: after.id, reason: 'Agreed with the customers.' }]);
    expect(reviewed.unused).toEqual([]);
    expect(reviewed.changes[0]!.acknowledged).toBe('Agreed with the customers.');
  });

  it('judges removing a deprecated argument by its own sunset; a removal of anything else is not touched', () => {
    const removed = (today: string) =>
      diffCatalogs(deprecated(), withoutStatus(deprecated()), today).find(
        (c) => c.id === 'argument-removed:demo/list_orders/input.status',
      )!;
    expect(removed('2027-02-01').acknowledged).toBeUndefined(); // before the argument's own sunset
    expect(removed('2027-04-01').acknowledged).toContain('sunset 2027-03-31, which has passed');
    const other = fresh();
    other.connectors[0].tools = other.connectors[0].tools.filter((t: { name: string }) => t.name !== 'update_note');
    const plain = diffCatalogs(fresh(), other, '2099-01-01').find((c) => c.code === 'tool-removed')!;
    expect(plain).toMatchObject({ id: 'tool-removed:demo/update_note', message: 'tool update_note removed' });
    expect(plain.acknowledged).toBeUndefined();
  });

  describe('the command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-diff-deprecation-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const file = (name: string, c: Catalog) => {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify(c));
      return path;
    };
    const cli = async (...argv: string[]) => {
      let text = '';
      let errors = '';
      const io = {
        colour: false,
        out: (t: string) => {
          text += t;
        },
        err: (t: string) => {
          errors += t;
        },
      };
      const ack = join(dir, 'none.yaml');
      writeFileSync(ack, 'acknowledged: []\n');
      const code = await run([...argv, '--ack', ack], io);
      return { code, text, errors };
    };

    it('passes once the sunset has passed, fails before, and refuses a day that is no day', async () => {
      const base = file('base.json', deprecated());
      const head = file('head.json', withoutGetCustomer(deprecated()));
      const after = await cli(base, head, '--today', '2027-02-01');
      expect(after.code).toBe(0);
      expect(after.text).toContain('tool get_customer removed (deprecated; sunset 2027-01-31 passed)');
      const before = await cli(base, head, '--today', '2027-01-15');
      expect(before.code).toBe(1);
      expect(before.text).toContain('removed before its sunset 2027-01-31');
      expect((await cli(base, head, '--today', '2027-02-30')).code).toBe(2);
    });
  });
});
