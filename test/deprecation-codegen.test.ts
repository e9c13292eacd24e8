// Deprecation in the spec (docs/spec-format.md, 'Deprecation'): codegen carries a tool's and an
// argument's deprecation into the descriptor and the catalog, and `codegen --lint` fails once a
// sunset has passed while the item is still there (SPEC045), on the day it is given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../codegen/generate.ts';
import { run } from '../codegen/main.ts';
import { isCalendarDay, utcDay } from '../codegen/deprecations.ts';
import { specCopy, type SpecCopy } from './support/spec-copy.ts';

const TOOL = { reason: 'The query tool answers this now.', replacement: 'graphql_query', sunset: '2027-01-31' };
const ARG = { reason: 'Sections are always complete now.', sunset: '2027-03-31' };

describe('deprecation through codegen', () => {
  let copy: SpecCopy;
  beforeAll(() => {
    copy = specCopy();
    copy.edit('cases', (doc, at) => {
      // Only this test's deprecations: any the spec has now are taken out of the copy.
      const tools = doc.get('tools') as { items: unknown[] };
      for (let i = 0; i < tools.items.length; i++) doc.deleteIn(['tools', i, 'deprecated']);
      doc.setIn(['tools', at('introspect_schema'), 'deprecated'], TOOL);
      doc.setIn(['tools', at('introspect_schema'), 'input', 'properties', 'includeTypes', 'deprecated'], ARG);
    });
  });
  afterAll(() => copy.remove());

  it('puts the deprecation in the descriptor, catalog.json and CATALOG.md', async () => {
    const { diagnostics, files } = await runPipeline(copy.specs, copy.root);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const catalog = JSON.parse(files!.get('catalog.json')!.replace(/^\/\/.*\n/gm, '')) as {
      connectors: { key: string; tools: Record<string, unknown>[] }[];
    };
    const cases = catalog.connectors.find((c) => c.key === 'cases')!;
    const tool = cases.tools.find((t) => t.name === 'introspect_schema')!;
    expect(tool.deprecated).toEqual({ ...TOOL, replacement: 'cases__graphql_query' });
    expect(tool.deprecatedArguments).toEqual({ includeTypes: ARG });
    // Published as the JSON Schema annotation; the spec's object never reaches a schema.
    expect((tool.input as { properties: Record<string, unknown> }).properties.includeTypes).toMatchObject({
      deprecated: true,
    });
    const marked = cases.tools.filter((t) => 'deprecated' in t).map((t) => t.name);
    expect(marked).toContain('introspect_schema');
    expect(marked).not.toContain('list_cases');
    const descriptor = files!.get('cases/descriptor.ts')!;
    expect(descriptor).toContain('"replacement": "graphql_query"');
    expect(descriptor).toContain('"sunset": "2027-03-31"');
    expect(files!.get('CATALOG.md')).toContain(
      '**Deprecated** (sunset 2027-01-31; use `cases__graphql_query`): The query tool answers this now.',
    );
  });

  it('fails the lint only on a day after the sunset, and never while generating', async () => {
    const lint = async (today?: string) => {
      const lines: string[] = [];
      const code = await run(
        ['--lint', '--root', copy.root, ...(today ? ['--today', today] : [])],
        (l) => lines.push(l),
        (l) => lines.push(l),
      );
      return { code, text: lines.join('\n') };
    };
    expect((await lint('2027-01-31')).code).toBe(0); // the sunset day itself is still served
    const after = await lint('2027-02-01');
    expect(after.code).toBe(1);
    expect(after.text).toContain('SPEC045 tool `introspect_schema` is past its sunset 2027-01-31');
    expect(after.text).not.toContain('argument `includeTypes`');
    expect((await lint('2027-04-01')).text).toContain('SPEC045 argument `includeTypes` of tool `introspect_schema`');
    expect((await lint('2027-13-01')).code).toBe(2);
    // Without --today the lint reads the clock: today (2026) is before both sunsets.
    expect(utcDay() < '2027-01-31' ? (await lint()).code : 0).toBe(0);
    const generated = await runPipeline(copy.specs, copy.root);
    expect(generated.diagnostics.map((d) => d.code)).not.toContain('SPEC045');
  });

  it('checks a reason as a spec text: references (SPEC038) and tools named without one (SPEC039)', async () => {
    const bad = specCopy();
    try {
      bad.edit('cases', (doc, at) => {
        doc.setIn(['tools', at('introspect_schema'), 'deprecated'], {
          reason: 'Use graphql_query.',
          sunset: '2027-01-01',
        });
        const arg = ['tools', at('introspect_schema'), 'input', 'properties', 'includeTypes', 'deprecated'];
        doc.setIn(arg, { reason: 'See {{tool:nope}}.', sunset: '2027-01-01' });
      });
      const { diagnostics } = await runPipeline(bad.specs, bad.root);
      expect(diagnostics.map((d) => `${d.code} ${d.message.split(' names')[0]!.split(' refers')[0]}`)).toEqual([
        'SPEC038 deprecation reason in tool `introspect_schema` (input.includeTypes)',
        'SPEC039 deprecation reason of tool `introspect_schema`',
      ]);
    } finally {
      bad.remove();
    }
  });

  it('knows a calendar day', () => {
    expect(isCalendarDay('2028-02-29')).toBe(true);
    expect(isCalendarDay('2027-02-29')).toBe(false);
    expect(isCalendarDay('2027-1-01')).toBe(false);
  });
});
