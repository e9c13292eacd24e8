import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/contacts/{contactGuid}`, camel-cased (with `isDebitor` and `isCreditor`). */
export const getContact: BooksHandler<'get_contact'> = async (args, ctx) => {
  return objectRead(ctx, { path: orgPath(args.organizationId, `/contacts/${segment(args.contactGuid)}`) }, 'a contact');
};
