import type { ErpHandler } from '#generated/erp/contract.ts';
import { apiPath, erpGet, isRow, notFoundIn, objectBody, resolveEnvironment, stripOData } from './client.ts';

/**
 * `GET {B}/api/v2.0/companies({id})/companyInformation`: a one-row collection (upstreams/erp.md §2),
 * so `value[0]`, or null when it is empty; a bare record is accepted too. OData annotations removed.
 */
export const getCompanyInformation: ErpHandler<'get_company_information'> = async (args, ctx) => {
  const environment = await resolveEnvironment(ctx, args.environment);
  const body = objectBody(
    await erpGet(ctx, {
      path: apiPath(environment, `/companies(${args.companyId})/companyInformation`),
      notFound: notFoundIn(ctx, environment),
    }),
    'the company information',
  );
  const value = body['value'];
  const record = Array.isArray(value) ? value.find(isRow) : body;
  const companyInformation = record === undefined ? null : (stripOData(record) as Record<string, unknown>);
  return { context: { environment, companyId: args.companyId }, companyInformation };
};
