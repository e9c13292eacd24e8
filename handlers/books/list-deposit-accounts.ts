import type { BooksHandler } from '#generated/books/contract.ts';
import { arrayBody, camelRow, dineroJson, orgPath, prop } from './client.ts';

/** `GET /v1/{o}/accounts/deposit`: account number, name, default and hidden flags (bank details on request). */
export const listDepositAccounts: BooksHandler<'list_deposit_accounts'> = async (args, ctx) => {
  const fields = [
    'AccountNumber',
    'Name',
    'IsDefault',
    'IsHidden',
    ...(args.includeBankDetails
      ? ['BankRegistrationNumber', 'BankAccountNumber', 'BankSwiftNumber', 'BankIbanNumber']
      : []),
  ];
  const rows = arrayBody(
    await dineroJson(ctx, {
      path: orgPath(args.organizationId, '/accounts/deposit'),
      query: { fields: fields.join(',') },
    }),
    'the deposit accounts',
  );
  const accounts = rows.filter((row) => args.includeHidden || prop(row, 'IsHidden') !== true).map(camelRow);
  return { count: accounts.length, accounts };
};
