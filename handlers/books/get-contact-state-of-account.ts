import type { BooksHandler } from '#generated/books/contract.ts';
import { arrayBody, camelRow, dineroJson, numberOr, objectBody, orgPath, prop, segment } from './client.ts';
import { stateOfAccountQuery } from './state-of-account.ts';

/**
 * `GET /v1/{o}/state-of-account/{contactGuid}`: income, expenses and the entries with their running
 * balance (computed here when an entry comes without one). At most `maxEntries` entries are
 * returned: the most recent ones, whose balances end in the current balance; `entryCount` is the
 * full number and `truncated` says that older entries were left out.
 */
export const getContactStateOfAccount: BooksHandler<'get_contact_state_of_account'> = async (args, ctx) => {
  const body = objectBody(
    await dineroJson(ctx, {
      path: orgPath(args.organizationId, `/state-of-account/${segment(args.contactGuid)}`),
      query: stateOfAccountQuery(args),
    }),
    'a state of account',
  );
  const raw = prop(body, 'Entries');
  const rows = raw === null || raw === undefined ? [] : arrayBody(raw, 'the state-of-account entries');
  let running = 0;
  const entries = rows.map((row) => {
    const entry = camelRow(row);
    running = Math.round((running + numberOr(entry['amount'], 0)) * 100) / 100;
    if (typeof entry['balance'] !== 'number') entry['balance'] = running;
    else running = entry['balance'];
    return entry;
  });
  const max = Math.min(args.maxEntries, ctx.limits.maxEntries);
  const contactGuid = prop(body, 'ContactGuid');
  return {
    contactGuid: typeof contactGuid === 'string' ? contactGuid : args.contactGuid,
    income: numberOr(prop(body, 'Income'), 0),
    expenses: numberOr(prop(body, 'Expenses'), 0),
    entryCount: entries.length,
    truncated: entries.length > max,
    entries: entries.slice(Math.max(0, entries.length - max)),
  };
};
