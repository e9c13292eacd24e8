// What every portal page shares: the request in hand, the signed-in user, the texts, the layout
// with its navigation, form reading with the CSRF check, the audit entry of a change, and the
// look-ups several pages make (the account's connectors, a link's requester, the confirmation).
// Each page is a module of `pages/` exporting its handlers; `pages.ts` and `account-pages.ts` route
// to them through their route tables (`routes.ts`).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConnectorRuntime, Endpoint, GatewayContext } from '../gateway-context.ts';
import type { PlatformPortalText, PlatformPortalTextParams } from '#generated/platform/descriptor.ts';
import type { FailArgs } from '../handler-api/tool-context.ts';
import { auditDetail, recordAudit, userActor } from '../operations/audit.ts';
import type { LinkPayload } from '../secrets/signed-links.ts';
import type { Account, User } from '../store/store.ts';
import type { Identity } from '../store/state.ts';
import type { ConnectionTestResult } from '../pipeline/connection-test.ts';
import { BodyTooLarge, readBody } from '../io/http-io.ts';
import {
  escapeHtml,
  type NavItem,
  portalTexts,
  type NamedPortalTexts,
  type PortalTexts,
  type PortalWord,
  sendPage,
} from './html.ts';
import { clientAddress, PortalSessions, type SignedIn } from './session.ts';

/** How a set-password link reaches its user, when a test replaces the mail (runtime/mail/) that is the default. */
export type PasswordLinkDelivery = (to: { readonly email: string; readonly name: string }, link: string) => void;

/** The portal's "Test connection" (runtime/pipeline/connection-test.ts); undefined: the connector declares none. */
export type ConnectionTest = (
  endpoint: Endpoint,
  identity: Identity,
  signal: AbortSignal,
  reqId: string,
) => Promise<ConnectionTestResult | undefined>;

/** The connect form's check of a submitted credential (the pipeline's `checkCredential`); `text` is the spec's. */
export type CredentialCheck = (
  endpoint: Endpoint,
  accountId: string,
  values: Readonly<Record<string, string>>,
  signal: AbortSignal,
) => Promise<
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'rejected' | 'unverified' | 'not_configured'; readonly text: string }
>;

export interface PortalOptions {
  /** Let an account admin subscribe from the portal without billing (demo and trials). */
  readonly selfServicePurchase: boolean;
  /** Let an account admin change the account's fair-use quota in the portal. */
  readonly selfServiceQuota?: boolean;
  readonly deliverPasswordLink?: PasswordLinkDelivery;
  /** Checks a credential typed into a connect form with the upstream before it is stored (spec `connector.connect`). */
  readonly checkCredential: CredentialCheck;
  /** Runs the connector's declared test read as the user's call (spec `connector.connectionTest`). */
  readonly testConnection?: ConnectionTest;
}

export interface PortalRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly signedIn: SignedIn | undefined;
}

/** A page for a signed-in user, who is known. */
export interface SignedInRequest extends PortalRequest {
  readonly signedIn: SignedIn;
}

const FORM_LIMIT_BYTES = 64 * 1024;

/** Confirmations a page shows after a redirect (`?done=<name>`): only these names. */
const DONE = new Map<string, PortalWord>(
  (
    [
      'subscribed',
      'seats_saved',
      'role_saved',
      'connected',
      'disconnected',
      'quota_saved',
      'token_revoked',
      'grant_revoked',
      'terms_accepted',
      'data_layer_enabled',
      'data_layer_disabled',
      'tools_saved',
      'user_removed',
      'invite_sent',
    ] as const
  ).map((name) => [name, `done_${name}`]),
);

/** A date and time as the portal shows it: `2026-03-01 14:05` (UTC). */
export const fmtDate = (d: Date): string => d.toISOString().slice(0, 16).replace('T', ' ');

export class PortalKit {
  readonly g: GatewayContext;
  readonly options: PortalOptions;
  readonly text: PortalTexts;
  readonly #named: NamedPortalTexts;
  readonly sessions: PortalSessions;

  constructor(g: GatewayContext, options: PortalOptions) {
    this.g = g;
    this.options = options;
    this.text = this.#named = portalTexts(g.platform);
    const limits = g.platform.limits;
    this.sessions = new PortalSessions({
      store: g.store,
      vault: g.vault,
      now: g.now,
      publicBaseUrl: () => g.config.publicBaseUrl,
      limits: {
        sessionSeconds: limits.portalSessionSeconds,
        failuresPerAddress: limits.signInFailuresPerAddress,
        failuresPerAccount: limits.signInFailuresPerAccount,
        windowSeconds: limits.signInWindowSeconds,
      },
    });
  }

  t(name: PortalWord): string;
  t(...args: FailArgs<PlatformPortalTextParams>): string;
  t(name: PlatformPortalText, params?: Readonly<Record<string, string | number>>): string {
    return this.#named.t(name, params);
  }

  /**
   * The upstream check of a credential typed into a connect form (spec `connect.verify`), before
   * anything is stored: undefined when it may be stored, else the error paragraph and the status
   * (400 refused by the upstream, 503 not checkable now). Nothing is stored on a refusal, so a
   * connect link stays usable for another try.
   */
  async verifyCredential(
    r: PortalRequest,
    at: {
      readonly accountId: string;
      readonly userId: string;
      readonly instanceId: string;
      readonly connector: string;
    },
    values: Readonly<Record<string, string>>,
  ): Promise<{ readonly html: string; readonly status: number } | undefined> {
    const gone = new AbortController();
    r.res.once('close', () => gone.abort());
    const verdict = await this.options.checkCredential(
      this.g.endpoints.get(at.instanceId)!,
      at.accountId,
      values,
      gone.signal,
    );
    if (verdict.ok) return undefined;
    this.g.log.info(
      {
        accountId: at.accountId,
        userId: at.userId,
        connector: at.connector,
        instance: at.instanceId,
        reason: verdict.reason,
      },
      'connection not stored',
    );
    return {
      html: `<p class="error" role="alert">${escapeHtml(verdict.text)}</p>`,
      status: verdict.reason === 'rejected' ? 400 : 503,
    };
  }

  endpointUrl(instanceId: string): string {
    return `${this.g.config.publicBaseUrl}/${instanceId}/mcp`;
  }

  #nav(s: SignedIn): NavItem[] {
    const admin = s.user.role === 'admin';
    const items: Array<[PortalWord, string, boolean]> = [
      ['nav_overview', '/portal', true],
      ['nav_connectors', '/portal/connectors', true],
      ['nav_team', '/portal/team', true],
      ['nav_connections', '/portal/connections', true],
      ['nav_usage', '/portal/usage', true],
      ['nav_calls', '/portal/calls', true],
      ['nav_tokens', '/portal/tokens', true],
      ['nav_data_layer', '/portal/data-layer', admin],
      ['nav_audit', '/portal/audit', admin],
      ['nav_terms', '/portal/terms', true],
    ];
    return items.filter(([, , shown]) => shown).map(([text, path]) => ({ text: this.text.plain(text), path }));
  }

  /** A page; signed in, with the navigation and sign-out form. */
  view(
    r: PortalRequest,
    status: number,
    title: string,
    body: string,
    headers?: Readonly<Record<string, string | string[]>>,
  ): number {
    const s = r.signedIn;
    // Every refusal and error page has a way back: the portal signed in, else the start page.
    const back = s ? (['/portal', 'back_to_portal'] as const) : (['/', 'back_to_start'] as const);
    return sendPage(r.res, status, {
      title,
      documentTitle: this.text.plain('page_title', { title }),
      body: status >= 400 ? `${body}<p class="back"><a href="${back[0]}">${this.t(back[1])}</a></p>` : body,
      ...(s
        ? {
            nav: {
              items: this.#nav(s),
              current: r.path,
              signedInAs: this.text.plain('signed_in_as', { name: s.user.name, account: s.account.name }),
              signOut: this.text.plain('sign_out'),
              csrf: s.csrf,
            },
          }
        : {}),
      ...(headers ? { headers } : {}),
    });
  }

  /** A short refusal or notice page: both texts by name (typed), filled in with the same parameters. */
  notice(
    r: PortalRequest,
    status: number,
    titleText: PlatformPortalText,
    messageText: PlatformPortalText,
    params?: Readonly<Record<string, string | number>>,
  ): number {
    const text = this.#named;
    return this.view(
      r,
      status,
      text.plain(titleText, params),
      `<p${status >= 400 ? ' class="error"' : ''}>${text.t(messageText, params)}</p>`,
    );
  }

  /**
   * The posted form after its CSRF check; undefined when a page was sent instead (413 too large,
   * 403 without the form's token).
   */
  async form(r: PortalRequest): Promise<URLSearchParams | undefined> {
    let posted: URLSearchParams;
    try {
      posted = new URLSearchParams((await readBody(r.req, FORM_LIMIT_BYTES)).toString('utf8'));
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        this.notice(r, 413, 'too_large_title', 'too_large');
        return undefined;
      }
      throw error;
    }
    if (!this.sessions.checkCsrf(r.req, posted.get('csrf'), r.signedIn)) {
      this.g.log.warn(
        { path: r.path, address: clientAddress(r.req) },
        'portal form refused: missing or wrong CSRF token',
      );
      this.notice(r, 403, 'csrf_title', 'csrf_refused');
      return undefined;
    }
    return posted;
  }

  /** A signed or set-password link that cannot be used: expired (410), used or invalid (400). */
  linkInvalid(r: PortalRequest, reason: string): number {
    return this.view(
      r,
      reason === 'expired' ? 410 : 400,
      this.text.plain('link_invalid_title'),
      `<p class="error">${this.t(`link_${reason === 'expired' || reason === 'used' ? reason : 'invalid'}`)}</p><p ` +
        `class="note">${this.t('link_ask_again')}</p>`,
    );
  }

  /** The confirmation of the change a redirect came back from (`?done=<name>`), or ''. */
  done(r: PortalRequest): string {
    const text = DONE.get(r.query.get('done') ?? '');
    return text ? `<p class="ok" role="status">${this.t(text)}</p>` : '';
  }

  isAdmin(r: SignedInRequest): boolean {
    return r.signedIn.user.role === 'admin';
  }

  /** The 403 of an administrator page opened (or posted) by a member. */
  adminOnly(r: SignedInRequest): number {
    return this.notice(r, 403, 'forbidden_title', 'admin_only');
  }

  /** Every configured connector once, in configuration order. */
  connectors(): ConnectorRuntime[] {
    return [...new Map([...this.g.endpoints.values()].map((e) => [e.connector.config.key, e.connector])).values()];
  }

  /** The configured connector of a key (a link names its connector by key). */
  connectorOf(key: string): ConnectorRuntime | undefined {
    return [...this.g.endpoints.values()].find((e) => e.connector.config.key === key)?.connector;
  }

  /** Endpoint instances of the account's subscribed connectors, in configuration order. */
  subscribedEndpoints(accountId: string): Endpoint[] {
    return [...this.g.endpoints.values()].filter((e) => this.g.state.isSubscribed(accountId, e.connector.config.key));
  }

  accountUsers(r: SignedInRequest): Promise<User[]> {
    return this.g.store.users.listUsers(r.signedIn.account.id);
  }

  /** How many of the users hold a seat of the connector. */
  seatCount(users: readonly User[], key: string): number {
    return users.filter((u) => this.g.state.hasSeat(u.id, key)).length;
  }

  /** The account and user a link was issued to (the snapshot, else the store: a link from another replica). */
  async requesterOf(payload: LinkPayload): Promise<{ account: Account; user: User } | undefined> {
    const account =
      this.g.state.account(payload.accountId) ?? (await this.g.store.accounts.getAccount(payload.accountId));
    const user = (await this.g.store.users.getUser(payload.userId)) ?? this.g.state.user(payload.userId);
    if (!account || !user || user.accountId !== account.id) return undefined;
    return { account, user };
  }

  /** Records a change made in the portal by the signed-in user (or the link's user). */
  audit(
    r: PortalRequest,
    actor: { id: string; email: string; accountId: string },
    action: string,
    target: string,
    detail: Readonly<Record<string, string | number | boolean | null | undefined>> = {},
  ): Promise<void> {
    return recordAudit(
      this.g.store,
      {
        accountId: actor.accountId,
        actor: userActor(actor),
        action,
        target,
        detail: auditDetail(detail),
        source: clientAddress(r.req),
      },
      this.g.log,
    );
  }
}

/** `next=` after sign-in: a portal path of this gateway only (never another site). */
export function safeNext(value: string | null | undefined): string {
  if (!value?.startsWith('/portal') || value.startsWith('//') || /[\\\s]/.test(value) || value.length > 2048)
    return '/portal';
  return value;
}
