// catalog:diff --format github: annotations on the spec lines of each change (the golden fixture's
// specs/demo.yaml), and --fail-on dangerous.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../bin/catalog-diff.ts';
import { applyAcknowledgements } from '../codegen/diff/acknowledge.ts';
import { diffCatalogs } from '../codegen/diff/classify.ts';
import { specLocator } from '../codegen/diff/locations.ts';
import { renderGithub, renderMarkdown, textChange } from '../codegen/diff/render.ts';
import { GOLDEN } from './support/golden.ts';
import { catalogTool, goldenCatalog, type Mutable } from './support/golden-catalog.ts';

const SPEC = readFileSync(join(GOLDEN, 'specs/demo.yaml'), 'utf8').split('\n');
/** The 1-based line of the first spec line containing `text` after the line containing `after`. */
const lineOf = (text: string, after = '') => {
  const start = SPEC.findIndex((l) => l.includes(after));
  return SPEC.findIndex((l, i) => i >= start && l.includes(text)) + 1;
};

describe('spec locations of changes', () => {
  const locate = specLocator(GOLDEN);
  it('finds arguments, output fields, errors, limits, tools and the connector', () => {
    expect(locate('demo/list_orders/input.status')).toEqual({
      file: 'specs/demo.yaml',
      line: lineOf('status: { enum', 'name: list_orders'),
    });
    expect(locate('demo/list_orders/input.status')!.line).toBeGreaterThan(lineOf('name: list_orders'));
    expect(locate('demo/errors.rejected')?.line).toBe(lineOf('text: "{upstream} rejected'));
    expect(locate('demo/list_orders')?.line).toBe(lineOf('name: list_orders'));
    expect(locate('demo/limits.upstreamPageSize')?.line).toBe(lineOf('upstreamPageSize: 100'));
    expect(locate('demo')?.line).toBe(lineOf('id: demo'));
    expect(locate('elsewhere/x')).toBeUndefined();
  });
});

describe('--format github and --fail-on', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const files = (head: Mutable) => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-diff-github-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'base.json'), JSON.stringify(goldenCatalog()));
    writeFileSync(join(dir, 'head.json'), JSON.stringify(head));
    return [join(dir, 'base.json'), join(dir, 'head.json'), '--root', GOLDEN];
  };
  const capture = () => {
    const io = { text: '', errors: '', colour: false, out: (t: string) => (io.text += t), err: (t: string) => {} };
    io.err = (t: string) => (io.errors += t);
    return io;
  };

  it('::error on the line of a breaking change, ::warning for a dangerous one, nothing for info', () => {
    const head = goldenCatalog();
    delete catalogTool(head, 'list_orders').input.properties.status;
    catalogTool(head, 'list_orders').input.properties.limit.default = 50;
    catalogTool(head, 'list_orders').title = 'Orders';
    const out = renderGithub(applyAcknowledgements(diffCatalogs(goldenCatalog(), head), []), specLocator(GOLDEN));
    const lines = out.trimEnd().split('\n');
    expect(lines.find((l) => l.startsWith('::error'))).toBe(
      `::error file=specs/demo.yaml,line=${lineOf('status: { enum', 'name: list_orders')},` +
        'title=breaking%3A argument-removed::demo/list_orders/input.status: argument input.status removed ' +
        '[argument-removed:demo/list_orders/input.status]',
    );
    expect(lines.find((l) => l.startsWith('::warning'))).toMatch(
      /^::warning file=specs\/demo\.yaml,line=\d+,title=dangerous%3A default-changed::/,
    );
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('1 breaking (0 acknowledged), 1 dangerous, 1 info');
    expect(renderGithub(applyAcknowledgements(diffCatalogs(goldenCatalog(), head), []), () => undefined)).toContain(
      '::error title=breaking%3A argument-removed::',
    );
  });

  it('the CLI: --fail-on dangerous fails on a dangerous change that passes by default; bad values exit 2', async () => {
    const head = goldenCatalog();
    catalogTool(head, 'list_orders').input.properties.limit.default = 50;
    let io = capture();
    expect(await run([...files(head), '--format', 'github'], io)).toBe(0);
    expect(io.text).toMatch(/^::warning file=specs\/demo\.yaml,line=\d+,/);
    io = capture();
    expect(await run([...files(head), '--format', 'github', '--fail-on', 'dangerous'], io)).toBe(1);
    expect(io.text).toMatch(/^::error file=specs\/demo\.yaml,line=\d+,title=dangerous/);
    io = capture();
    expect(await run([...files(head), '--fail-on', 'dangerous'], io)).toBe(1);
    expect(io.errors).toContain('--fail-on dangerous');
    io = capture();
    expect(await run([...files(head), '--fail-on', 'info'], io)).toBe(2);
    expect(io.errors).toContain('unknown --fail-on `info`');
  });
});

describe('text changes show both texts', () => {
  it('a changed error text: both texts in the Markdown, and the tools that return it', () => {
    const head = goldenCatalog();
    head.connectors[0].errors.rejected.text = 'Refused by the shop.';
    const md = renderMarkdown(applyAcknowledgements(diffCatalogs(goldenCatalog(), head), []), {
      base: 'main',
      head: 'branch',
    });
    const row = md.split('\n').find((l) => l.includes('error-text-changed:demo/errors.rejected'))!;
    expect(row).toContain(
      'before: “{upstream} rejected the request: {field}: {messages}” → after: “Refused by the shop.”',
    );
    const returning = goldenCatalog()
      .connectors[0].tools.filter((t: { errors?: string[] }) => t.errors?.includes('rejected'))
      .map((t: { name: string }) => `demo__${t.name}`);
    expect(returning.length).toBeGreaterThan(0);
    expect(row).toContain(`returned by ${returning.join(', ')}`);
  });

  it('a long text is shown as a word diff', () => {
    const long = 'word '.repeat(40);
    expect(textChange(`${long}old tail`, `${long}new tail`)).toBe('word diff: … [-old-] {+new+} …');
    expect(textChange('short', undefined)).toBe('before: “short” → after: “none”');
  });
});
