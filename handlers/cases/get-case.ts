import type { CasesHandler } from '#generated/cases/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `cases__get_case`: replace it with the upstream logic (see the spec in specs/cases.yaml). */
export const getCase: CasesHandler<'get_case'> = stub('cases', 'get_case');
