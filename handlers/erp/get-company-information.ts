import type { ErpHandler } from '../../generated/erp/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `erp__get_company_information`: replace it with the upstream logic (see the spec in specs/erp.yaml). */
export const getCompanyInformation: ErpHandler<'get_company_information'> = stub('erp', 'get_company_information');
