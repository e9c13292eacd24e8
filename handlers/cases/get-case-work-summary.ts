import type { CasesHandler } from '#generated/cases/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `cases__get_case_work_summary`: replace it with the upstream logic (see the spec in specs/cases.yaml). */
export const getCaseWorkSummary: CasesHandler<'get_case_work_summary'> = stub('cases', 'get_case_work_summary');
