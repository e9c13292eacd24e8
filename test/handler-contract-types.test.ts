// The handler contract is enforced by the type checker (`npm run typecheck` runs over this file):
// each `@ts-expect-error` below must stay an error, or tsc fails because the directive is unused.
// A misspelled code, a missing text parameter, a code the tool's spec does not list and a limit the
// spec does not declare are all compile errors; the runtime assertions only keep vitest honest.
import { describe, expect, it } from 'vitest';
import type { CasesContext } from '../generated/cases/contract.ts';
import type { LedgerContext } from '../generated/ledger/contract.ts';
import type { RegisterContext, RegisterContextWith, RegisterHandler } from '../generated/register/contract.ts';

function misuses(
  register: RegisterContext<'soeg_virksomhed'>,
  ledger: LedgerContext<'query'>,
  cases: CasesContext<'find_cases'>,
): void {
  register.fail('register_api', { status: 502 });
  register.fail('credential_missing', { connector_id: 'register' });
  // @ts-expect-error a misspelled code
  register.fail('register_apii', { status: 502 });
  // @ts-expect-error a parameter missing from the text's parameters
  register.fail('register_api');
  // @ts-expect-error a misspelled parameter
  register.fail('register_api', { statuss: 502 });
  // @ts-expect-error a code the spec does not list for this tool (too_many_groups is aggregate's only)
  ledger.fail('too_many_groups', { limit: 1000 });
  ledger.refuseArguments('generic');
  // @ts-expect-error `{upstream}` is the runtime's to fill in, never a handler's
  cases.fail('key_rejected', { upstream: 'x' });
  const size: number = register.limits.maxSize;
  // @ts-expect-error a limit the spec does not declare
  void register.limits.maxPageSize;
  // @ts-expect-error a limit that is another tool's (upstreamPageSize belongs to some case tools only)
  void ledger.limits.upstreamPageSize;
  void size;
}

/** A helper asks for the codes it raises; only tools whose spec lists them can call it. */
function helper(ctx: RegisterContextWith<'register_auth'>): never {
  return ctx.fail('register_auth');
}
const handler: RegisterHandler<'hent_virksomhed'> = async (_args, ctx) => helper(ctx);

describe('handler contract types', () => {
  it('compiles only the calls the specs allow (checked by tsc)', () => {
    expect(typeof misuses).toBe('function');
    expect(typeof handler).toBe('function');
  });
});

function notes(cases: CasesContext<'find_cases'>): string {
  // @ts-expect-error a text the connector does not have
  void cases.text('amountNote');
  // @ts-expect-error a text without one of its parameters
  void cases.text('findCasesTruncated', { scanned: 1 });
  return cases.text('findCasesTruncated', { scanned: 600, pages: 3 }) + cases.text('amountsNote');
}
void notes;
