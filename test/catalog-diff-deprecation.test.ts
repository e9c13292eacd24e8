// catalog:diff and deprecations (docs/catalog-diff.md, 'Deprecation and sunset'): deprecating is
// information, a sunset moved earlier dangerous; removing a deprecated tool or argument is
// acknowledged by the deprecation once its sunset has passed (judged on the day given), and is an
// unacknowledged breaking change before. Catalogs: this checkout's generated/catalog.json, changed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../bin/catalog-diff.ts';
import { applyAcknowledgements } from '../codegen/diff/acknowledge.ts';
import type { Catalog } from '../codegen/diff/catalog.ts';
import { diffCatalogs } from '../codegen/diff/classify.ts';
import { parseCatalog } from '../codegen/diff/sources.ts';

type Mutable = { connectors: { key: string; tools: Record<string, any>[] }[] } & Catalog;
const TEXT = readFileSync(new URL('../generated/catalog.json', import.meta.url), 'utf8');
const fresh = () => parseCatalog(TEXT, 'catalog.json') as Mutable;
const casesOf = (c: Mutable) => c.connectors.find((x) => x.key === 'cases')!;
const describeType = (c: Mutable) => casesOf(c).tools.find((t) => t.name === 'describe_type')!;
const TOOL = {
  reason: 'The schema tool answers this now.',
  replacement: 'cases__introspect_schema',
  sunset: '2027-01-31',
};
const ARG = { reason: 'Sections are always complete now.', sunset: '2027-03-31' };

/** The catalog with describe_type (and its `limit`) deprecated, as codegen writes it. */
function deprecated(): Mutable {
  const c = fresh();
  const t = describeType(c);
  t.deprecated = TOOL;
  t.deprecatedArguments = { limit: ARG };
  t.input.properties.limit.deprecated = true;
  return c;
}

function withoutDescribeType(c: Mutable): Mutable {
  casesOf(c).tools = casesOf(c).tools.filter((t) => t.name !== 'describe_type');
  return c;
}

function withoutLimit(c: Mutable): Mutable {
  const t = describeType(c);
  delete t.input.properties.limit;
  delete t.deprecatedArguments;
  t.arguments = t.arguments.filter((a: { name: string }) => a.name !== 'limit');
  return c;
}

const summary = (changes: ReturnType<typeof diffCatalogs>) =>
  changes.map((c) => ({ id: c.id, severity: c.severity, acknowledged: c.acknowledged !== undefined }));

describe('catalog:diff of deprecations', () => {
  it('reports deprecating a tool and an argument as information, and nothing else', () => {
    const changes = diffCatalogs(fresh(), deprecated(), '2026-11-28');
    expect(summary(changes)).toEqual([
      { id: 'tool-deprecated:cases/describe_type', severity: 'info', acknowledged: false },
      { id: 'argument-deprecated:cases/describe_type/input.limit', severity: 'info', acknowledged: false },
    ]);
    expect(changes[0]!.message).toBe(
      'tool describe_type deprecated: The schema tool answers this now. Use `cases__introspect_schema` instead. ' +
        'Sunset 2027-01-31.',
    );
  });

  it('reports a sunset moved earlier as dangerous, a later one or a withdrawal as information', () => {
    const earlier = deprecated();
    describeType(earlier).deprecated = { ...TOOL, sunset: '2026-12-31' };
    expect(summary(diffCatalogs(deprecated(), earlier, '2026-11-28'))).toEqual([
      { id: 'sunset-advanced:cases/describe_type', severity: 'dangerous', acknowledged: false },
    ]);
    const later = deprecated();
    describeType(later).deprecated = { ...TOOL, sunset: '2027-06-30' };
    expect(summary(diffCatalogs(deprecated(), later, '2026-11-28'))[0]).toMatchObject({
      id: 'deprecation-changed:cases/describe_type',
      severity: 'info',
    });
    const ids = diffCatalogs(deprecated(), fresh(), '2026-11-28').map((c) => c.id);
    expect(ids).toEqual([
      'deprecation-withdrawn:cases/describe_type',
      'deprecation-withdrawn:cases/describe_type/input.limit',
    ]);
  });

  it('acknowledges removing a deprecated tool after its sunset, and not on or before it', () => {
    const removed = (today: string) =>
      diffCatalogs(deprecated(), withoutDescribeType(deprecated()), today).find(
        (c) => c.id === 'tool-removed:cases/describe_type',
      )!;
    const after = removed('2027-02-01');
    expect(after).toMatchObject({ severity: 'breaking', code: 'tool-removed' });
    expect(after.acknowledged).toBe(
      'deprecated with sunset 2027-01-31, which has passed: The schema tool answers this now.',
    );
    expect(applyAcknowledgements([after], []).ok).toBe(true);
    const onTheDay = removed('2027-01-31');
    expect(onTheDay.acknowledged).toBeUndefined();
    expect(onTheDay.message).toBe(
      'tool describe_type removed before its sunset 2027-01-31 (deprecated: The schema tool answers this now.)',
    );
    expect(applyAcknowledgements([onTheDay], []).ok).toBe(false);
    // A reviewer's entry for it is used, with the reviewer's reason.
    const reviewed = applyAcknowledgements([after], [{ change: after.id, reason: 'Agreed with the customers.' }]);
    expect(reviewed.unused).toEqual([]);
    expect(reviewed.changes[0]!.acknowledged).toBe('Agreed with the customers.');
  });

  it('judges removing a deprecated argument by its own sunset; a removal of anything else is not touched', () => {
    const removed = (today: string) =>
      diffCatalogs(deprecated(), withoutLimit(deprecated()), today).find(
        (c) => c.id === 'argument-removed:cases/describe_type/input.limit',
      )!;
    expect(removed('2027-02-01').acknowledged).toBeUndefined(); // the tool's sunset, not the argument's
    expect(removed('2027-04-01').acknowledged).toContain('sunset 2027-03-31, which has passed');
    const other = fresh();
    casesOf(other).tools = casesOf(other).tools.filter((t) => t.name !== 'graphql_query');
    const plain = diffCatalogs(fresh(), other, '2099-01-01').find((c) => c.code === 'tool-removed')!;
    expect(plain).toMatchObject({ id: 'tool-removed:cases/graphql_query', message: 'tool graphql_query removed' });
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
      const head = file('head.json', withoutDescribeType(deprecated()));
      const after = await cli(base, head, '--today', '2027-02-01');
      expect(after.code).toBe(0);
      expect(after.text).toContain('tool describe_type removed (deprecated; sunset 2027-01-31 passed)');
      const before = await cli(base, head, '--today', '2027-01-15');
      expect(before.code).toBe(1);
      expect(before.text).toContain('removed before its sunset 2027-01-31');
      expect((await cli(base, head, '--today', '2027-02-30')).code).toBe(2);
    });
  });
});
