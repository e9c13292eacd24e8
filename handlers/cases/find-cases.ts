import type { CasesHandler } from '#generated/cases/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `cases__find_cases`: replace it with the upstream logic (see the spec in specs/cases.yaml). */
export const findCases: CasesHandler<'find_cases'> = stub('cases', 'find_cases');
