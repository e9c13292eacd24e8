import type { ErpHandler } from '../../generated/erp/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `erp__list_entity_metadata`: replace it with the upstream logic (see the spec in specs/erp.yaml). */
export const listEntityMetadata: ErpHandler<'list_entity_metadata'> = stub('erp', 'list_entity_metadata');
