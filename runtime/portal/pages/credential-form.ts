// The credential a tenant types into a connect form (a connect link's or the connections page's):
// its fields per credential kind, their inputs, and what a posted form may store.
import type { CredentialKind } from '../../handler-api/descriptor-types.ts';
import type { PortalKit, PortalRequest } from '../kit.ts';
import type { PortalWord } from '../html.ts';

/** One field of a connect form: its name, its label text, and whether it is typed unseen. */
export interface CredentialFormField {
  readonly name: string;
  readonly label: PortalWord;
  readonly secret: boolean;
}

/** The form fields of each credential kind a tenant enters (OAuth connects through the provider). */
export const CREDENTIAL_FORM_FIELDS: Readonly<
  Record<Exclude<CredentialKind, 'managed_basic' | 'oauth2'>, readonly CredentialFormField[]>
> = {
  api_key: [{ name: 'apiKey', label: 'field_api_key', secret: true }],
  static_token: [{ name: 'token', label: 'field_grant_token', secret: true }],
  login_company: [
    { name: 'username', label: 'field_username', secret: false },
    { name: 'password', label: 'field_password', secret: true },
    { name: 'companyId', label: 'field_company_id', secret: false },
  ],
};

/** The labelled inputs of the fields (never prefilled: a credential is not sent back). */
export function credentialInputs(kit: PortalKit, fields: readonly CredentialFormField[]): string {
  const { t } = kit.text;
  return fields
    .map(
      (f) =>
        `<label for="${f.name}">${t(f.label)}</label><input id="${f.name}" name="${f.name}" type="` +
        `${f.secret ? 'password' : 'text'}` +
        '" autocomplete="off" required>',
    )
    .join('');
}

/**
 * The posted credential: its trimmed values, and why they may not be stored, if so: a field left
 * empty (400, nothing asked upstream) or the upstream check's refusal (`kit.verifyCredential`).
 */
export async function postedCredential(
  kit: PortalKit,
  r: PortalRequest,
  form: URLSearchParams,
  fields: readonly CredentialFormField[],
  at: { readonly accountId: string; readonly userId: string; readonly instanceId: string; readonly connector: string },
): Promise<{
  readonly values: Record<string, string>;
  readonly refused?: { readonly html: string; readonly status: number };
}> {
  const { t, plain } = kit.text;
  const values: Record<string, string> = Object.fromEntries(
    fields.map((f) => [f.name, (form.get(f.name) ?? '').trim()]),
  );
  const missing = fields.filter((f) => !values[f.name]);
  if (missing.length > 0)
    return {
      values,
      refused: {
        html:
          `<p class="error" role="alert">${t('fill_in', { fields: missing.map((f) => plain(f.label)).join(', ') })}` +
          '</p>',
        status: 400,
      },
    };
  const refused = await kit.verifyCredential(r, at, values);
  return refused ? { values, refused } : { values };
}
