// `GET /v1/organizations` (books.md §2 #1–2): the one call that needs no Pro plan, so a 403 here is
// passed through with the upstream's words rather than called ProPlanRequiredError (doc 001).
import type { ListOrganizationsResult } from '#generated/books/types.ts';

type Organization = ListOrganizationsResult['organizations'][number];
import { arrayBody, type BooksWireContext, camelRow, dineroCall, prop } from './client.ts';

/**
 * The properties `fields` documents on `/v1/organizations`, in PascalCase (the defaults are three
 * lower-case ones). OrganizationReadModel also has CountryKey and Website, but the `fields` list of
 * the OpenAPI text omits both and books.md §5 leaves CountryKey unconfirmed there, so neither is
 * asked for: `countryKey` is read when an answer carries it and is null otherwise (the spec allows null).
 */
export const ORGANIZATION_FIELDS =
  'Id,Name,Type,IsPro,IsPayingPro,IsVatFree,Email,Phone,Street,City,ZipCode,AttPerson,IsTaxFreeUnion,VatNumber';

export async function readOrganizations(ctx: BooksWireContext): Promise<Organization[]> {
  const body = (await dineroCall(ctx, { path: '/v1/organizations', query: { fields: ORGANIZATION_FIELDS } })).body;
  const out: Organization[] = [];
  for (const row of arrayBody(body, 'the organisations list')) {
    const id = prop(row, 'Id');
    const name = prop(row, 'Name');
    if (typeof id !== 'number' || !Number.isInteger(id) || typeof name !== 'string') continue;
    const vatNumber = prop(row, 'VatNumber');
    const countryKey = prop(row, 'CountryKey');
    out.push({
      ...camelRow(row),
      id,
      name,
      vatNumber: typeof vatNumber === 'string' ? vatNumber : null,
      countryKey: typeof countryKey === 'string' ? countryKey : null,
      isPro: prop(row, 'IsPro') === true,
    });
  }
  return out;
}
