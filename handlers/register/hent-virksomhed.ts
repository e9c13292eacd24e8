import type { RegisterHandler } from '#generated/register/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `register__hent_virksomhed`: replace it with the upstream logic (see the spec in specs/register.yaml). */
export const hentVirksomhed: RegisterHandler<'hent_virksomhed'> = stub('register', 'hent_virksomhed');
