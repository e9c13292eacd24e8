// The golden fixture's catalog (test/fixtures/golden/generated/catalog.json) as the catalog-diff
// tests change it: a fresh mutable copy per test, and its tools by name.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GOLDEN } from './golden.ts';

export type Mutable = any;

const GOLDEN_CATALOG = readFileSync(join(GOLDEN, 'generated/catalog.json'), 'utf8');

/** The golden catalog, its connector declared `stability` (stable by default: every class shows its own severity). */
export function goldenCatalog(stability = 'stable'): Mutable {
  const c = JSON.parse(GOLDEN_CATALOG);
  c.connectors[0].stability = stability;
  return c;
}

/** A tool of the catalog's connector, by name. */
export const catalogTool = (c: Mutable, name: string): Mutable =>
  c.connectors[0].tools.find((t: { name: string }) => t.name === name);
