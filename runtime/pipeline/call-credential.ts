// Step 4 of a tools/call (pipeline.ts): the call's credential. A connector without tenant
// credentials calls with the deployment's managed one, answered without a promise (one frozen object
// per connector, whose redactor is then found by identity: docs/decisions/performance.md, 'No await
// where the answer is at hand'); a tenant credential is this very instance's connection, opened from
// the vault per call and refreshed first when it is an OAuth grant about to expire.
import type { Endpoint, GatewayContext } from '../gateway-context.ts';
import type { PlatformErrorParams } from '#generated/platform/descriptor.ts';
import type { Credential, FailArgs } from '../handler-api/tool-context.ts';
import { VaultError } from '../secrets/vault.ts';
import type { Identity } from '../store/state.ts';
import type { OAuthGrant } from '../upstream/oauth.ts';
import { tenantCredential, type ConnectorTexts } from './call-context.ts';
import type { CallLogFields, CallToolResult } from './call-types.ts';
import type { Refusals } from './refusals.ts';

/** The call's credential (null: a connector that calls without one), or the refusal already counted and logged. */
export type CredentialStep = { readonly credential: Credential | null } | { readonly refusal: CallToolResult };

export class CallCredentials {
  readonly #g: GatewayContext;
  readonly #refusals: Refusals;
  readonly #textsOf: (endpoint: Endpoint) => ConnectorTexts;
  readonly #platformText: (...args: FailArgs<PlatformErrorParams>) => string;
  /** Managed credentials as calls receive them, by the configuration's object. */
  readonly #made = new WeakMap<object, { readonly credential: Credential }>();

  /** `texts` are the pipeline's: a connector's texts per endpoint, and the platform's texts. */
  constructor(
    gateway: GatewayContext,
    refusals: Refusals,
    texts: {
      readonly of: (endpoint: Endpoint) => ConnectorTexts;
      readonly platform: (...args: FailArgs<PlatformErrorParams>) => string;
    },
  ) {
    this.#g = gateway;
    this.#refusals = refusals;
    this.#textsOf = texts.of;
    this.#platformText = texts.platform;
  }

  /** The credential of this call: a promise only for a tenant credential. */
  of(
    endpoint: Endpoint,
    identity: Identity,
    fields: CallLogFields,
    tool: string,
  ): CredentialStep | Promise<CredentialStep> {
    return endpoint.connector.descriptor.tenantCredential
      ? this.#tenant(endpoint, identity, fields, tool)
      : this.#managed(endpoint, fields, tool);
  }

  /** The deployment has not configured what the connector needs (its account, or the integrator's secret). */
  #missing(endpoint: Endpoint, fields: CallLogFields, tool: string): CredentialStep {
    const { id } = endpoint.connector.config;
    const text = this.#platformText('credential_missing', { connector_id: id });
    return { refusal: this.#refusals.refuse(endpoint, fields, tool, 'credential_missing', text) };
  }

  /**
   * The deployment's managed credential of a connector without tenant credentials: one object per
   * connector, made once (its redactor is then found by identity, not by its JSON each call).
   */
  #managed(endpoint: Endpoint, fields: CallLogFields, tool: string): CredentialStep {
    const { config } = endpoint.connector;
    if (!config.managedCredential) return this.#missing(endpoint, fields, tool);
    let managed = this.#made.get(config.managedCredential);
    if (!managed) {
      managed = { credential: Object.freeze({ kind: 'managed_basic', ...config.managedCredential }) };
      this.#made.set(config.managedCredential, managed);
    }
    return managed;
  }

  async #tenant(endpoint: Endpoint, identity: Identity, fields: CallLogFields, tool: string): Promise<CredentialStep> {
    const { descriptor, config } = endpoint.connector;
    // An upstream that also takes the integrator's secret: dormant until the deployment configures it.
    if (descriptor.appSecret && !config.appSecret) return this.#missing(endpoint, fields, tool);
    const connection = this.#g.state.connection(identity.account.id, endpoint.instanceId);
    if (!connection) {
      const text = await this.#refusals.linkedText(
        'not_connected',
        'connect',
        'connect_url',
        { instance_id: endpoint.instanceId },
        identity,
        endpoint,
        fields,
        tool,
      );
      return { refusal: this.#refusals.refuse(endpoint, fields, tool, 'not_connected', text) };
    }
    let stored: object;
    try {
      stored = JSON.parse(
        this.#g.vault.open(connection.ciphertext, identity.account.id, endpoint.instanceId),
      ) as object;
    } catch (error) {
      this.#g.log.error(
        { ...fields, err: error instanceof VaultError ? error.message : 'credential unreadable' },
        'stored credential refused',
      );
      return {
        refusal: this.#refusals.refuse(endpoint, fields, tool, 'credential_invalid', this.#platformText('generic')),
      };
    }
    if (descriptor.credential === 'oauth2' && descriptor.oauth) {
      // An access token expiring soon is refreshed first (one refresh per connection, all replicas).
      const fresh = await this.#g.oauth.refresher.fresh(
        this.#g.oauth.clients.get(config.key),
        connection,
        stored as OAuthGrant,
        { ...fields },
      );
      if (!fresh.ok) {
        if (fresh.reason === 'reconnect') {
          // DECISIONS §19: the connector's "expired, could not be refreshed" text, with a connect link.
          const answer = await this.#refusals.answer(
            endpoint,
            identity,
            fields,
            tool,
            this.#textsOf(endpoint),
            descriptor.oauth.refreshFailed,
            {},
          );
          return { refusal: this.#refusals.refused(endpoint, fields, tool, 'credential_reconnect', answer) };
        }
        return {
          refusal: this.#refusals.refuse(
            endpoint,
            fields,
            tool,
            'credential_refresh_failed',
            this.#platformText('generic'),
          ),
        };
      }
      stored = fresh.grant;
    }
    return { credential: tenantCredential(endpoint.connector, stored) };
  }
}
