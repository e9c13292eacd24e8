import type { CasesHandler } from '#generated/cases/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `cases__graphql_query`: replace it with the upstream logic (see the spec in specs/cases.yaml). */
export const graphqlQuery: CasesHandler<'graphql_query'> = stub('cases', 'graphql_query');
