// A connect link: bound to the user who asked for it, who must be signed in and have accepted the
// terms; the credential form (or the OAuth start) of the link's instance.
import type { ConnectorRuntime } from '../../gateway-context.ts';
import type { CredentialKind } from '../../handler-api/descriptor-types.ts';
import type { LinkPayload } from '../../secrets/signed-links.ts';
import type { Account, User } from '../../store/store.ts';
import { escapeHtml, postButton } from '../html.ts';
import type { PortalKit, PortalRequest } from '../kit.ts';
import type { SignedIn } from '../session.ts';
import {
  CREDENTIAL_FORM_FIELDS,
  type CredentialFormField,
  credentialInputs,
  postedCredential,
} from './credential-form.ts';
import { connectRuleRefused } from './connect-rule.ts';
import { startOAuth } from './oauth.ts';

/** A connect link checked: its instance, and its user, who is the one signed in. */
interface LinkTarget {
  readonly connector: ConnectorRuntime;
  readonly kind: Exclude<CredentialKind, 'managed_basic'>;
  readonly instanceId: string;
  readonly jti: string;
  readonly account: Account;
  readonly user: User;
  readonly signedIn: SignedIn;
  readonly title: string;
  /** Who asks to connect what, and the warning: the top of every form of the link. */
  readonly context: string;
}

/** A connect link: bound to its user, who must be signed in and have accepted the terms. */
export async function connectLink(
  kit: PortalKit,
  r: PortalRequest,
  payload: LinkPayload,
  token: string,
): Promise<number> {
  const target = await checkedTarget(kit, r, payload, token);
  if (typeof target === 'number') return target;
  const { kind } = target;
  if (kind === 'oauth2') return oauthStart(kit, r, target, token);
  return credentialForm(kit, r, target, token, CREDENTIAL_FORM_FIELDS[kind]);
}

/**
 * The link's target, or the page already sent: invalid, used or expired (at once, not after the
 * user signed in or typed a credential), not signed in, signed in as another user, terms first.
 */
async function checkedTarget(
  kit: PortalKit,
  r: PortalRequest,
  payload: LinkPayload,
  token: string,
): Promise<LinkTarget | number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const connector = kit.connectorOf(payload.connectorKey);
  const instanceId = payload.instanceId;
  if (!connector || !instanceId || !payload.jti || !g.endpoints.has(instanceId)) return kit.linkInvalid(r, 'invalid');
  const kind = connector.descriptor.credential;
  if (kind === 'managed_basic') return kit.linkInvalid(r, 'invalid');
  const requester = await kit.requesterOf(payload);
  if (!requester) return kit.linkInvalid(r, 'invalid');
  // A used or expired link says so at once, not after the user signed in or typed a credential.
  const state = await g.store.links.connectLinkState(payload.jti, g.now());
  if (state !== 'ok') {
    r.req.resume();
    return kit.linkInvalid(r, state);
  }
  const title = plain('connect_title', { connector: connector.descriptor.title });
  const { account, user } = requester;
  const context =
    '<p>' +
    t('connect_context_link', {
      name: user.name,
      email: user.email,
      account: account.name,
      connector: connector.descriptor.title,
      endpoint: kit.endpointUrl(instanceId),
      path: `/${instanceId}/mcp`,
    }) +
    `</p><p class="warning">${t('connect_warning', { account: account.name })}</p>`;
  // Before its own user signs in, the link shows nothing of the account: not who asked, not the
  // account (docs/decisions/portal.md, 'Signed links never act on their own').
  const signedIn = r.signedIn;
  if (!signedIn) {
    r.req.resume();
    const next = encodeURIComponent(`/portal/connect/${token}`);
    return kit.view(
      r,
      r.req.method === 'POST' ? 401 : 200,
      title,
      `<p>${t('connect_sign_in_first')}</p>` +
        `<p><a class="button" href="/portal/sign-in?next=${next}">${t('sign_in_to_continue')}</a></p>`,
    );
  }
  if (signedIn.user.id !== user.id) {
    r.req.resume();
    g.log.warn(
      { linkUser: user.id, signedInUser: signedIn.user.id, instance: instanceId },
      'connect link refused: signed in as another user',
    );
    return kit.view(r, 403, title, `<p class="error" role="alert">${t('connect_other_user')}</p>`);
  }
  if (!signedIn.user.termsAcceptedAt) {
    r.req.resume();
    return kit.view(
      r,
      403,
      plain('terms_first_title'),
      `<p class="warning">${t('terms_first')}</p><p><a href="/portal/terms?next=` +
        `${encodeURIComponent(`/portal/connect/${token}`)}` +
        `">${t('terms_open')}</a></p>`,
    );
  }
  const refused = await connectRuleRefused(kit, { ...r, signedIn }, connector, instanceId);
  if (refused !== undefined) return refused;
  return { connector, kind, instanceId, jti: payload.jti, account, user, signedIn, title, context };
}

/** An OAuth connector's link: a button that starts the flow with the provider. */
async function oauthStart(
  kit: PortalKit,
  r: PortalRequest,
  { connector, instanceId, jti, account, user, signedIn, title, context }: LinkTarget,
  token: string,
): Promise<number> {
  const { t, plain } = kit.text;
  if (r.req.method === 'POST') {
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    await kit.audit(r, { ...signedIn.user }, 'connection.oauth_start', instanceId, {
      connector: connector.config.key,
      via: 'link',
    });
    return startOAuth(kit, r, { accountId: account.id, userId: user.id, instanceId, jti }, connector);
  }
  return kit.view(
    r,
    200,
    title,
    `${context}<p class="note">${t('connect_oauth_note')}</p>` +
      postButton(
        `/portal/connect/${token}`,
        signedIn.csrf,
        plain('connect_oauth_button', { connector: connector.descriptor.title }),
      ),
  );
}

/** The credential form of the link; a posted credential the upstream accepts is stored and the link used up. */
async function credentialForm(
  kit: PortalKit,
  r: PortalRequest,
  target: LinkTarget,
  token: string,
  fields: readonly CredentialFormField[],
): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const { connector, instanceId, account, user } = target;
  let error = '';
  let status = 400;
  if (r.req.method === 'POST') {
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    const { values, refused } = await postedCredential(kit, r, form, fields, {
      accountId: account.id,
      userId: user.id,
      instanceId,
      connector: connector.config.id,
    });
    if (!refused) {
      const outcome = await g.store.links.consumeConnectLink(target.jti, g.now());
      if (outcome !== 'ok') return kit.linkInvalid(r, outcome);
      const sealed = g.vault.seal(JSON.stringify(values), account.id, instanceId);
      await g.store.connections.putConnection({
        accountId: account.id,
        instanceId,
        connectorKey: connector.config.key,
        ciphertext: sealed.ciphertext,
        keyVersion: sealed.keyVersion,
      });
      await g.state.refresh();
      g.log.info(
        { accountId: account.id, userId: user.id, connector: connector.config.id, instance: instanceId },
        'connection stored',
      );
      await kit.audit(r, { ...user }, 'connection.set', instanceId, { connector: connector.config.key, via: 'link' });
      return kit.view(
        r,
        200,
        plain('connected_title', { connector: connector.descriptor.title }),
        `<p role="status">${t('connected_text', { endpoint: kit.endpointUrl(instanceId), account: account.name })}</p>`,
      );
    }
    error = refused.html;
    status = refused.status;
  }
  return kit.view(
    r,
    error ? status : 200,
    target.title,
    `${target.context}<p class="note">${t('connect_stored_note')}</p>${error}<form method="post" ` +
      `action="/portal/connect/${escapeHtml(token)}"><input type="hidden" name="csrf" value="` +
      `${escapeHtml(target.signedIn.csrf)}` +
      `">${credentialInputs(kit, fields)}<button type="submit">${t('connect_button')}</button></form>`,
  );
}
