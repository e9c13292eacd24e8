import type { ErpHandler } from '../../generated/erp/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `erp__list_environments`: replace it with the upstream logic (see the spec in specs/erp.yaml). */
export const listEnvironments: ErpHandler<'list_environments'> = stub('erp', 'list_environments');
