// The contract suite's output check (test/support/contract.ts `outputProblem`), on results built
// here: it must find what the contract suite relies on it to find, for a connector that answers
// structuredContent (erp) and one that answers the JSON text only (ledger).
import { describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import type { ConnectorModule, ToolDescriptor } from '../runtime/handler-api/descriptor-types.ts';
import { outputProblem } from './support/contract.ts';

const erp: ConnectorModule = registry.erp;
const ledger: ConnectorModule = registry.ledger;
const toolOf = (module: ConnectorModule, name: string): ToolDescriptor =>
  module.descriptor.tools.find((t) => t.name === name)!;
const textResult = (value: unknown, extra: Record<string, unknown> = {}) => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  ...extra,
});

describe('outputProblem', () => {
  const environments = toolOf(erp, 'list_environments');
  const transactions = toolOf(ledger, 'list_gl_transactions');
  const erpValue = { count: 0, items: [] };
  const ledgerValue = { entity: 'GLTransClient', count: 1, items: [{ Account: '1000', Amount: 12.5 }] };

  it('accepts results that match, in either form, and ignores failures', () => {
    expect(erp.descriptor.structuredContent).toBe(true);
    expect(ledger.descriptor.structuredContent).toBe(false);
    expect(
      outputProblem(
        erp.descriptor,
        erp.validators,
        environments,
        textResult(erpValue, { structuredContent: erpValue }),
      ),
    ).toBeUndefined();
    expect(outputProblem(ledger.descriptor, ledger.validators, transactions, textResult(ledgerValue))).toBeUndefined();
    expect(
      outputProblem(ledger.descriptor, ledger.validators, transactions, {
        isError: true,
        content: [{ type: 'text', text: 'not JSON' }],
      }),
    ).toBeUndefined();
  });

  it('names the validator and the failing path of a result that does not match', () => {
    const wrong = { ...ledgerValue, items: [{ Account: '1000', Amount: { value: 12.5 } }] };
    const problem = outputProblem(ledger.descriptor, ledger.validators, transactions, textResult(wrong));
    expect(problem).toMatch(/^output_list_gl_transactions: \/items\/0\/Amount must be number,string/);
    const missing = outputProblem(
      erp.descriptor,
      erp.validators,
      environments,
      textResult({ items: [] }, { structuredContent: { items: [] } }),
    );
    expect(missing).toMatch(/^output_list_environments: \(root\) must have required property 'count'/);
  });

  it("checks the answer's form: one JSON text block, structuredContent only where published, equal to the text", () => {
    expect(outputProblem(erp.descriptor, erp.validators, environments, textResult(erpValue))).toBe(
      'structuredContent missing',
    );
    expect(
      outputProblem(
        erp.descriptor,
        erp.validators,
        environments,
        textResult(erpValue, { structuredContent: { count: 1, items: [] } }),
      ),
    ).toBe('structuredContent differs from the JSON text');
    expect(
      outputProblem(
        ledger.descriptor,
        ledger.validators,
        transactions,
        textResult(ledgerValue, { structuredContent: ledgerValue }),
      ),
    ).toMatch(/^structuredContent answered/);
    expect(
      outputProblem(ledger.descriptor, ledger.validators, transactions, {
        content: [{ type: 'text', text: 'rows: 1' }],
      }),
    ).toMatch(/^the text is not JSON/);
    expect(outputProblem(ledger.descriptor, ledger.validators, transactions, { content: [] })).toBe(
      'a successful result is not exactly one text block',
    );
  });
});
