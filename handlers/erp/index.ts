import type { ErpHandlers } from '#generated/erp/contract.ts';
import { listEnvironments } from './list-environments.ts';
import { listCompanies } from './list-companies.ts';
import { getCompanyInformation } from './get-company-information.ts';
import { listEntityMetadata } from './list-entity-metadata.ts';
import { queryEntity } from './query-entity.ts';

/** Every Business Central ERP tool's handler; `satisfies` makes a missing, extra or mistyped one a type error. */
export const erpHandlers = {
  list_environments: listEnvironments,
  list_companies: listCompanies,
  get_company_information: getCompanyInformation,
  list_entity_metadata: listEntityMetadata,
  query_entity: queryEntity
} satisfies ErpHandlers;
