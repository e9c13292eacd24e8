import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath, readPdf, segment } from './client.ts';
import { stateOfAccountQuery } from './state-of-account.ts';

/** `GET /v1/{o}/state-of-account/{contactGuid}/pdf` (same period and open-items options): the PDF as base64. */
export const downloadContactStateOfAccountPdf: BooksHandler<'download_contact_state_of_account_pdf'> = async (
  args,
  ctx,
) => ({
  contactGuid: args.contactGuid,
  ...(await readPdf(
    ctx,
    {
      path: orgPath(args.organizationId, `/state-of-account/${segment(args.contactGuid)}/pdf`),
      query: stateOfAccountQuery(args),
    },
    `state-of-account-${args.contactGuid}.pdf`,
  )),
});
