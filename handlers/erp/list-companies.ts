import type { ErpHandler } from '../../generated/erp/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `erp__list_companies`: replace it with the upstream logic (see the spec in specs/erp.yaml). */
export const listCompanies: ErpHandler<'list_companies'> = stub('erp', 'list_companies');
