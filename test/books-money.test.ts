// Issue 31, item 7: the bookkeeping connector's money-bearing answers say what an assistant needs
// to add them up. Against the Dinero sandbox, whose overdue invoices are in several currencies and
// partly paid: every row carries its currency and a DKK total, the sales lists carry the
// `amountsNote` that names where what remains unpaid lives, and that place (list_invoice_payments)
// gives a remaining amount below the invoice total. The published schemas say the same, and the
// reports say which sign a profit has.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BooksToolName, BooksTools } from '../generated/books/contract.ts';
import { booksDescriptor } from '../generated/books/descriptor.ts';
import { booksHandlers } from '../generated/books/handlers.ts';
import * as validators from '../generated/books/validators.js';
import type { CompiledValidator } from '../runtime/handler-api/descriptor-types.ts';
import type { Credential } from '../runtime/handler-api/tool-context.ts';
import { checkArguments } from '../runtime/pipeline/arguments.ts';
import { BOOKS_DEMO_ORG_ID, BOOKS_EXCHANGE_RATES, SALES_ACCOUNT } from '../sandbox/books/data.ts';
import { BOOKS_SANDBOX_TOKEN, type BooksSandbox, startBooksSandbox } from '../sandbox/books/server.ts';
import { testContext } from './support/tool-context.ts';
import { renderToolReferences } from '../runtime/gateway-context.ts';

/** A note as the default instance answers it: the tools it names are `books__<tool>`. */
const note = (name: string) => renderToolReferences(booksDescriptor.texts[name]!, booksDescriptor.defaultId);

const O = BOOKS_DEMO_ORG_ID;
const CREDENTIAL: Credential = {
  kind: 'oauth2',
  accessToken: BOOKS_SANDBOX_TOKEN,
  refreshToken: 'rt-books-Qm42-refresh',
  expiresAt: 4102444800000,
};

let sandbox: BooksSandbox;

/** One tool call with its arguments and its result validated by the generated validators. */
async function call<K extends BooksToolName>(tool: K, raw: Record<string, unknown>): Promise<BooksTools[K]['result']> {
  const input = (validators as unknown as Record<string, CompiledValidator>)[`input_${tool}`]!;
  const checked = checkArguments({ coerce: [] }, input, raw);
  if (!checked.ok) throw new Error(`arguments refused by the schema: ${checked.reason}`);
  const ctx = testContext({ descriptor: booksDescriptor, tool, credential: CREDENTIAL, baseUrl: sandbox.url });
  const handler = booksHandlers[tool] as unknown as (args: unknown, c: unknown) => Promise<BooksTools[K]['result']>;
  const result = await handler(checked.args, ctx);
  const output = (validators as unknown as Record<string, CompiledValidator>)[`output_${tool}`]!;
  output(result);
  expect(output.errors ?? [], `output_${tool}`).toEqual([]);
  return result;
}

type Schema = { description?: string; required?: string[]; properties?: Record<string, Schema>; items?: Schema };
/**
 * The books tools as the catalog shows them (books publishes no output schema in tools/list: `structuredContent:
 * false`).
 */
const CATALOG = JSON.parse(readFileSync(new URL('../generated/catalog.json', import.meta.url), 'utf8')) as {
  connectors: { key: string; tools: { name: string; description: string; result: Schema }[] }[];
};
const tool = (name: string) => {
  const entry = CATALOG.connectors.find((c) => c.key === 'books')!.tools.find((t) => t.name === name)!;
  return { description: entry.description, outputSchema: entry.result };
};

interface InvoiceRow {
  guid: string;
  currency: string;
  totalInclVat: number;
  totalInclVatInDkk: number;
}

beforeAll(async () => {
  sandbox = await startBooksSandbox({ switches: { rateLimitPerMinute: 0 } });
});
afterAll(async () => {
  await sandbox?.close();
});

describe('books: amounts an assistant can add up (issue 31, item 7)', () => {
  it('overdue invoice rows carry currency and a DKK total; the list says totals are not what remains', async () => {
    const overdue = await call('list_invoices_overdue', { organizationId: O, pageSize: 1000 });
    const rows = overdue.items as unknown as InvoiceRow[];
    expect(rows.length).toBeGreaterThan(20);
    const currencies = new Set(rows.map((r) => r.currency));
    expect([...currencies].sort()).toEqual(['DKK', 'EUR', 'SEK']);
    for (const row of rows) {
      expect(typeof row.totalInclVat).toBe('number');
      // The DKK column converts the row's own currency: equal for DKK, at the rate for the others.
      expect(
        Math.abs(row.totalInclVatInDkk - (row.totalInclVat * BOOKS_EXCHANGE_RATES[row.currency]!) / 100),
      ).toBeLessThanOrEqual(0.0051);
    }
    expect(overdue.amountsNote).toBe(note('invoiceAmountsNote'));
    expect(overdue.amountsNote).toContain('books__list_invoice_payments');
    expect(overdue.amountsNote).toContain('remainingAmount');
    expect(overdue.amountsNote).toContain('per currency');
  });

  it('what remains is in list_invoice_payments: partly paid overdue invoices remain below their totals', async () => {
    const rows = (await call('list_invoices_overdue', { organizationId: O, pageSize: 1000 }))
      .items as unknown as InvoiceRow[];
    let owedByTotals = 0;
    let owedByRemaining = 0;
    const partlyPaid: InvoiceRow[] = [];
    for (const row of rows) {
      const payments = await call('list_invoice_payments', { organizationId: O, invoiceGuid: row.guid });
      const { paidAmount, remainingAmount, invoiceTotalIncludingReminderExpenses } = payments as {
        paidAmount: number;
        remainingAmount: number;
        invoiceTotalIncludingReminderExpenses: number;
      };
      expect(remainingAmount).toBeCloseTo(invoiceTotalIncludingReminderExpenses - paidAmount, 2);
      for (const p of (payments.payments ?? []) as Array<{ currency: string }>) expect(p.currency).toBe(row.currency);
      if (paidAmount > 0) {
        partlyPaid.push(row);
        expect(remainingAmount).toBeLessThan(row.totalInclVat);
        expect(remainingAmount).toBeGreaterThan(0);
      }
      const rate = BOOKS_EXCHANGE_RATES[row.currency]! / 100;
      owedByTotals += row.totalInclVatInDkk;
      owedByRemaining += remainingAmount * rate;
    }
    expect(partlyPaid.length).toBeGreaterThanOrEqual(5);
    expect(partlyPaid.some((r) => r.currency !== 'DKK')).toBe(true);
    expect(owedByTotals).toBeGreaterThan(owedByRemaining);
  });

  it('list_invoices, list_sales and list_credit_notes carry their own amountsNote', async () => {
    expect((await call('list_invoices', { organizationId: O, status: 'Overdue' })).amountsNote).toBe(
      note('invoiceAmountsNote'),
    );
    const sales = await call('list_sales', { organizationId: O });
    expect(sales.amountsNote).toBe(note('salesAmountsNote'));
    expect(sales.amountsNote).toContain('list_credit_note_payments');
    expect((await call('list_credit_notes', { organizationId: O })).amountsNote).toBe(note('creditNoteAmountsNote'));
  });

  it('the published schemas say it too: currency per row, totals are not what remains, report signs', () => {
    for (const name of ['list_invoices_overdue', 'list_invoices', 'list_sales', 'list_credit_notes']) {
      const output = tool(name).outputSchema as Schema;
      expect(output.required, name).toContain('amountsNote');
      const row = output.properties!['items']!.items!.properties!;
      expect(row['currency']!.description).toMatch(/per currency/);
      expect(row['totalInclVat']!.description).toMatch(/not what remains unpaid/);
      expect(row['totalInclVatInDkk']!.description).toMatch(/across currencies/);
    }
    expect(tool('list_invoices_overdue').description).toMatch(/list_invoice_payments \(`remainingAmount`\)/);
    const payments = tool('list_invoice_payments').outputSchema as Schema;
    expect(payments.properties!['remainingAmount']!.description).toMatch(/still unpaid, in the document's currency/);
    for (const name of [
      'get_saldo_balance_report',
      'get_result_report',
      'get_balance_report',
      'get_primo_balance_report',
    ]) {
      const output = tool(name).outputSchema as Schema;
      expect(output.description, name).toMatch(/negative for a profit/);
      expect(output.properties!['rows']!.items!.properties!['amount']!.description, name).toMatch(
        /debit positive, credit negative/,
      );
    }
    expect(tool('get_result_report').description).toMatch(/a negative result is a profit/);
    // What tools/list shows the assistant: the descriptions in the descriptor say the same.
    expect(booksDescriptor.tools.find((t) => t.name === 'get_result_report')!.description).toMatch(
      /a negative result is a profit/,
    );
  });

  it('the result report is signed as the description says: income accounts negative', async () => {
    const report = await call('get_result_report', { organizationId: O, accountingYear: '2025' });
    const sales = report.rows.filter((r) => r.accountNumber >= SALES_ACCOUNT && r.accountNumber < SALES_ACCOUNT + 100);
    expect(sales.length).toBeGreaterThan(0);
    for (const row of sales) expect(row.amount).toBeLessThan(0);
  });
});
