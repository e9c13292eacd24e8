import type { RegisterHandler } from '#generated/register/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `register__find_produktionsenheder`: replace it with the upstream logic (see the spec in specs/register.yaml). */
export const findProduktionsenheder: RegisterHandler<'find_produktionsenheder'> = stub('register', 'find_produktionsenheder');
