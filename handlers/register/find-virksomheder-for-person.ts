import type { RegisterHandler } from '#generated/register/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `register__find_virksomheder_for_person`: replace it with the upstream logic (see the spec in specs/register.yaml). */
export const findVirksomhederForPerson: RegisterHandler<'find_virksomheder_for_person'> = stub('register', 'find_virksomheder_for_person');
