import type { RegisterHandlers } from '#generated/register/contract.ts';
import { soegVirksomhed } from './soeg-virksomhed.ts';
import { hentVirksomhed } from './hent-virksomhed.ts';
import { findProduktionsenheder } from './find-produktionsenheder.ts';
import { findEjere } from './find-ejere.ts';
import { findVirksomhederForPerson } from './find-virksomheder-for-person.ts';

/** Every Company register tool's handler; `satisfies` makes a missing, extra or mistyped one a type error. */
export const registerHandlers = {
  soeg_virksomhed: soegVirksomhed,
  hent_virksomhed: hentVirksomhed,
  find_produktionsenheder: findProduktionsenheder,
  find_ejere: findEjere,
  find_virksomheder_for_person: findVirksomhederForPerson
} satisfies RegisterHandlers;
