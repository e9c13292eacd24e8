import type { BooksHandler } from '#generated/books/contract.ts';
import { readOrganizations } from './organizations.ts';

/** `GET /v1/organizations`: `{ count, organizations }`; works without the Pro plan. */
export const listOrganizations: BooksHandler<'list_organizations'> = async (_args, ctx) => {
  const organizations = await readOrganizations(ctx);
  return { count: organizations.length, organizations };
};
