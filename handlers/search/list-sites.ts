import type { SearchHandler } from '#generated/search/contract.ts';
import { listSiteEntries } from './client.ts';

/**
 * Google's level of an entry the account has not verified (upstreams/search.md §3: the spec promises verified
 * properties).
 */
const UNVERIFIED = 'siteUnverifiedUser';

/** `sites.list`: the verified properties, `permissionLevel` passed through unchanged. */
export const listSites: SearchHandler<'list_sites'> = async (_args, ctx) => {
  const sites = (await listSiteEntries(ctx)).flatMap((entry) => {
    const { siteUrl, permissionLevel } = entry;
    if (
      typeof siteUrl !== 'string' ||
      typeof permissionLevel !== 'string' ||
      permissionLevel.toLowerCase().replace(/_/g, '') === UNVERIFIED.toLowerCase()
    )
      return [];
    return [{ siteUrl, permissionLevel }];
  });
  return { sites };
};
