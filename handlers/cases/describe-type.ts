import type { CasesHandler } from '#generated/cases/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `cases__describe_type`: replace it with the upstream logic (see the spec in specs/cases.yaml). */
export const describeType: CasesHandler<'describe_type'> = stub('cases', 'describe_type');
