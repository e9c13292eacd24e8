import type { ErpHandler } from '../../generated/erp/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `erp__query_entity`: replace it with the upstream logic (see the spec in specs/erp.yaml). */
export const queryEntity: ErpHandler<'query_entity'> = stub('erp', 'query_entity');
