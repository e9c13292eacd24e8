// The refusals of a tools/call and the tool error texts that carry a link (connect, purchase, team):
// counted, logged with the call's fields, and answered as one text block (pipeline.ts uses them).
import type { Endpoint, GatewayContext } from '../gateway-context.ts';
import { formatText, type ErrorParams } from '../handler-api/tool-error.ts';
import { MailNotices } from '../mail/notices.ts';
import type { LinkIssuer, LinkPurpose } from '../secrets/signed-links.ts';
import type { Identity } from '../store/state.ts';
import { currentRedactor } from '../redact.ts';
import type { ConnectorTexts } from './call-context.ts';
import {
  type CallLogFields,
  type CallToolResult,
  type LinkedCode,
  type RefusalReason,
  textResult,
} from './call-types.ts';

export class Refusals {
  readonly #g: GatewayContext;
  readonly #links: LinkIssuer;
  /** Mail to the account's administrators: a connection to reconnect, the quota reached. */
  readonly notices: MailNotices;

  constructor(gateway: GatewayContext, links: LinkIssuer) {
    this.#g = gateway;
    this.#links = links;
    this.notices = new MailNotices(gateway);
  }

  /** A refusal: counted, and logged at info with the call's fields, the tool asked for and why. */
  refuse(
    endpoint: Endpoint,
    fields: CallLogFields,
    tool: string,
    reason: RefusalReason,
    text: string,
    detail?: string,
  ): CallToolResult {
    return this.refused(endpoint, fields, tool, reason, textResult(text, true), detail);
  }

  /** Counts and logs a refusal answered with `result` (the one place a refusal is recorded). */
  refused(
    endpoint: Endpoint,
    fields: CallLogFields,
    tool: string,
    reason: RefusalReason,
    result: CallToolResult,
    detail?: string,
  ): CallToolResult {
    this.#g.metrics.refusals.inc({ connector: endpoint.connector.config.id, reason });
    this.#g.callLog.record(fields, tool, 'refused', reason, null);
    this.#g.telemetry?.outcome(fields.spanId, tool, 'refused', reason);
    this.#g.log.info({ ...fields, tool, reason, ...(detail ? { detail } : {}) }, 'call refused');
    return result;
  }

  /**
   * A tool's error text, as one text block (a failure is exactly one). A text the spec marks
   * `reconnect: true` is followed, in the same block after a blank line, by the platform's reconnect
   * instruction with a connect link to the portal form of this very instance, so the user can
   * reconnect without the operator (also on endpoints that list no connect_account). The spec text
   * alone when no link can be stored.
   */
  async answer(
    endpoint: Endpoint,
    identity: Identity,
    fields: CallLogFields,
    tool: string,
    texts: ConnectorTexts,
    code: string,
    params: ErrorParams,
  ): Promise<CallToolResult> {
    const text = texts.render(code, params);
    if (!texts.entry(code)?.reconnect) return textResult(text, true);
    await this.#markReconnect(identity, endpoint, fields, currentRedactor().text(text));
    const connectUrl = await this.tryLink('connect', identity, endpoint, fields, tool);
    if (connectUrl === undefined) return textResult(text, true);
    const { descriptor } = endpoint.connector;
    const instruction = formatText(this.#g.platform.instructions.reconnect, {
      connector_title: descriptor.title,
      instance_id: endpoint.instanceId,
      connect_url: connectUrl,
    });
    return textResult(`${text}\n\n${instruction}`, true);
  }

  /**
   * The connection needs a reconnect: the Connections page and the overview say so, with the time
   * and the text, until a reconnect clears it. A store that fails is logged, never the call's answer.
   */
  async #markReconnect(identity: Identity, endpoint: Endpoint, fields: CallLogFields, reason: string): Promise<void> {
    try {
      const marked = await this.#g.store.connections.markReconnectRequired(
        identity.account.id,
        endpoint.instanceId,
        reason,
      );
      if (marked) {
        this.#g.log.warn({ ...fields, reason }, 'connection needs reconnecting');
        await this.#g.state.refresh();
        void this.notices.reconnect(identity.account, endpoint.instanceId, endpoint.connector.descriptor.title);
      }
    } catch (error) {
      this.#g.log.warn({ ...fields, err: { message: (error as Error)?.message } }, 'reconnect mark not stored');
    }
  }

  link(purpose: LinkPurpose, identity: Identity, endpoint: Endpoint): Promise<string> {
    return this.#links.issue(purpose, identity, endpoint.connector.config.key, endpoint.instanceId);
  }

  /**
   * A link, or undefined when it could not be made: a connect link is stored, and the store may be
   * down or hanging (the issuer gives up at the store deadline). Logged with the call's fields
   * (account, connector, instance) and the tool; counted as the store failing open for links.
   */
  async tryLink(
    purpose: LinkPurpose,
    identity: Identity,
    endpoint: Endpoint,
    fields: CallLogFields,
    tool: string,
  ): Promise<string | undefined> {
    try {
      return await this.link(purpose, identity, endpoint);
    } catch (error) {
      this.#g.metrics.failOpen.inc({ component: 'links' });
      this.#g.log.warn(
        { ...fields, tool, purpose, err: { message: (error as Error)?.message, name: (error as Error)?.name } },
        'link could not be made; answering without it',
      );
      return undefined;
    }
  }

  /**
   * A platform refusal text that carries a link (`not_subscribed`, `no_seat`, `not_connected`,
   * `connect_terms_required`), or its `<code>_no_link` variant when the link could not be made.
   */
  async linkedText(
    code: LinkedCode,
    purpose: LinkPurpose,
    urlParam: string,
    params: ErrorParams,
    identity: Identity,
    endpoint: Endpoint,
    fields: CallLogFields,
    tool: string,
  ): Promise<string> {
    const url = await this.tryLink(purpose, identity, endpoint, fields, tool);
    const { errors } = this.#g.platform;
    return url === undefined
      ? formatText(errors[`${code}_no_link`].text, params)
      : formatText(errors[code].text, { ...params, [urlParam]: url });
  }

  /** Whether the caller's account subscribes to the connector and the user holds a seat (no refusal to make). */
  entitled(endpoint: Endpoint, identity: Identity): boolean {
    const { key } = endpoint.connector.config;
    return this.#g.state.isSubscribed(identity.account.id, key) && this.#g.state.hasSeat(identity.user.id, key);
  }

  /** Subscription, then seat: shared by every tool including connect_account. */
  async entitlement(
    endpoint: Endpoint,
    identity: Identity,
    fields: CallLogFields,
    tool: string,
  ): Promise<CallToolResult | undefined> {
    const { key, id } = endpoint.connector.config;
    if (!this.#g.state.isSubscribed(identity.account.id, key)) {
      const text = await this.linkedText(
        'not_subscribed',
        'purchase',
        'purchase_url',
        { connector_id: id },
        identity,
        endpoint,
        fields,
        tool,
      );
      return this.refuse(endpoint, fields, tool, 'not_subscribed', text);
    }
    if (!this.#g.state.hasSeat(identity.user.id, key)) {
      const text = await this.linkedText(
        'no_seat',
        'team',
        'team_url',
        { connector_id: id },
        identity,
        endpoint,
        fields,
        tool,
      );
      return this.refuse(endpoint, fields, tool, 'no_seat', text);
    }
    return undefined;
  }
}
