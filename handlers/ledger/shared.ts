// Helpers shared by the ledger tools: the debtor/creditor kind of a posting, `since`.
import { localMidnight } from '#runtime/handler-api/calendar.ts';
import type { LedgerContextWith } from '#generated/ledger/contract.ts';
import type { Row } from './client.ts';

export type DCKind = 'debtor' | 'creditor';

/**
 * The kind a `GLTransClient.DCType` names (`GLTransRefType`: Debtor = 1, Creditor = 2, as names or
 * numbers), or undefined when absent or not recognised. The values are unconfirmed (§5), so the
 * transaction tools only drop rows that are clearly the other kind (§3 #6).
 */
export function dcKind(value: unknown): DCKind | undefined {
  if (value === 1) return 'debtor';
  if (value === 2) return 'creditor';
  if (typeof value !== 'string') return undefined;
  switch (value.trim().toLowerCase()) {
    case 'debtor':
    case 'debitor':
    case '1':
      return 'debtor';
    case 'creditor':
    case 'kreditor':
    case '2':
      return 'creditor';
    default:
      return undefined;
  }
}

/** Postings of a debtor (or creditor): a `DCAccount` is set and `DCType` is not the other kind. */
export function postingOf(kind: DCKind): (row: Row) => boolean {
  const other: DCKind = kind === 'debtor' ? 'creditor' : 'debtor';
  return (row) => {
    const account = row['DCAccount'];
    if (account === undefined || account === null || account === '') return false;
    return dcKind(row['DCType']) !== other;
  };
}

/** `since` as an instant: a bare date is local midnight in the deployment's time zone. */
export function sinceInstant(ctx: LedgerContextWith<'generic'>, since: string | undefined): Date | undefined {
  if (since === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(since)) {
    // A calendar date that exists (2025-02-31 would roll over into March).
    const [y, m, d] = since.split('-').map(Number) as [number, number, number];
    const utc = new Date(Date.UTC(y, m - 1, d));
    if (Number.isNaN(utc.getTime()) || utc.toISOString().slice(0, 10) !== since) ctx.refuseArguments('generic');
    return localMidnight(since, ctx.timeZone);
  }
  const at = new Date(since);
  if (Number.isNaN(at.getTime())) ctx.refuseArguments('generic');
  return at;
}
