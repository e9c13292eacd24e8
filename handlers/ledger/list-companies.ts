import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession, type Row } from './client.ts';

/** An integer from a number or a digit string, else undefined. */
function integerOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return undefined;
}

/**
 * `CompanyClient` rows as the ledger gives them (often only the logged-in company, §3 #2), with
 * `CompanyId` = the row's own `CompanyId`, else `PrimaryKeyId` (§3 #1), and `LoggedIn` marking the
 * connection's company.
 */
export const listCompanies: LedgerHandler<'list_companies'> = async (_args, ctx) => {
  const session = await openSession(ctx);
  const rows = await session.query('CompanyClient', []);
  const configured = integerOf(session.companyId.trim());
  const companies = rows.map((row): Row => {
    const { CompanyId: _raw, ...rest } = row;
    const id = integerOf(row['CompanyId']) ?? integerOf(row['PrimaryKeyId']);
    if (id === undefined) return rest;
    return { ...rest, CompanyId: id, LoggedIn: configured !== undefined && id === configured };
  });
  return { count: companies.length, companies };
};
