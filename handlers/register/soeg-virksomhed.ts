import type { RegisterHandler } from '#generated/register/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `register__soeg_virksomhed`: replace it with the upstream logic (see the spec in specs/register.yaml). */
export const soegVirksomhed: RegisterHandler<'soeg_virksomhed'> = stub('register', 'soeg_virksomhed');
