import type { BooksHandler } from '#generated/books/contract.ts';
import { readOrganizations } from './organizations.ts';

/** The same authenticated read as list_organizations; a revoked grant ends in AccessTokenExpiredError. */
export const validateConnection: BooksHandler<'validate_connection'> = async (_args, ctx) => {
  const organizations = await readOrganizations(ctx);
  return { connected: true, organizationCount: organizations.length, organizations };
};
