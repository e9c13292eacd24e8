import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath, queryFilter, readEnvelope, since } from './client.ts';

/** The columns asked for (the defaults are only `name` and `contactGuid`, books.md §2 "Casing"). */
const CONTACT_FIELDS =
  'ContactGuid,Name,Street,ZipCode,City,CountryKey,Phone,Email,VatNumber,' +
  'EanNumber,IsPerson,ExternalReference,CreatedAt,UpdatedAt,DeletedAt';

/**
 * `deletedFilter` (values "not shown" in the spec): `deleted`/`only`/`true` → only deleted contacts,
 * `live`/`none`/`false` → only live ones, `all` → both (no `deletedOnly`, on `/v2/{o}/contacts`: v1
 * leaves deleted contacts out when it is absent, books.md §2). Anything else is refused.
 */
function deletedOnly(value: string | undefined): boolean | undefined | 'invalid' {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  if (['deleted', 'deletedonly', 'only', 'true'].includes(v)) return true;
  if (['live', 'active', 'none', 'notdeleted', 'false', 'exclude'].includes(v)) return false;
  if (['all', 'both', 'include'].includes(v)) return undefined;
  return 'invalid';
}

/**
 * `GET /v1/{o}/contacts`: the filters as `queryFilter` clauses (`Name contains`, `eq` for identifiers), the envelope.
 */
export const listContacts: BooksHandler<'list_contacts'> = async (args, ctx) => {
  const deleted = deletedOnly(args.deletedFilter);
  if (deleted === 'invalid') return ctx.refuseArguments('generic');
  const filter = queryFilter(ctx, [
    ['name', 'Name', 'contains', args.name],
    ['email', 'Email', 'eq', args.email],
    ['phone', 'Phone', 'eq', args.phone],
    ['vatNumber', 'VatNumber', 'eq', args.vatNumber],
    ['eanNumber', 'EanNumber', 'eq', args.eanNumber],
    ['externalReference', 'ExternalReference', 'eq', args.externalReference],
    ['isPerson', 'IsPerson', 'eq', args.isPerson],
  ]);
  // Live and deleted rows together only come from v2 without `deletedOnly`; v1 otherwise (the table's path).
  return readEnvelope(
    ctx,
    orgPath(args.organizationId, '/contacts', deleted === undefined ? 'v2' : 'v1'),
    args,
    { fields: CONTACT_FIELDS, queryFilter: filter, changesSince: since(args.changesSince), deletedOnly: deleted },
    'the contacts list',
  );
};
