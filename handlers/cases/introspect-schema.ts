import type { CasesHandler } from '#generated/cases/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `cases__introspect_schema`: replace it with the upstream logic (see the spec in specs/cases.yaml). */
export const introspectSchema: CasesHandler<'introspect_schema'> = stub('cases', 'introspect_schema');
