import type { CasesHandler } from '#generated/cases/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `cases__list_cases`: replace it with the upstream logic (see the spec in specs/cases.yaml). */
export const listCases: CasesHandler<'list_cases'> = stub('cases', 'list_cases');
