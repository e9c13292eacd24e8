import type { CasesHandler } from '#generated/cases/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `cases__list_case_hours`: replace it with the upstream logic (see the spec in specs/cases.yaml). */
export const listCaseHours: CasesHandler<'list_case_hours'> = stub('cases', 'list_case_hours');
