import type { RegisterHandler } from '#generated/register/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `register__find_ejere`: replace it with the upstream logic (see the spec in specs/register.yaml). */
export const findEjere: RegisterHandler<'find_ejere'> = stub('register', 'find_ejere');
