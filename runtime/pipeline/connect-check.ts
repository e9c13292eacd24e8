// The connect form's check of a submitted credential, before it is stored: the connector's `verify`
// read tool runs once with it, opened like a call (open-call.ts) but never writing and not metered.
import type { Logger } from 'pino';
import type { Endpoint } from '../gateway-context.ts';
import { ToolError } from '../handler-api/tool-error.ts';
import { UpstreamError } from '../handler-api/upstream-types.ts';
import { Redactor } from '../redact.ts';
import { startTrace } from '../trace-context.ts';
import { checkArguments } from './arguments.ts';
import { type ConnectorTexts, tenantCredential } from './call-context.ts';
import type { CredentialVerdict } from './call-types.ts';
import { type CallServices, openCall } from './open-call.ts';

/**
 * What the check needs from the pipeline: the endpoint's texts, the log, and the platform's text for a missing
 * application secret.
 */
export interface ConnectCheck {
  readonly services: CallServices;
  readonly texts: ConnectorTexts;
  readonly log: Logger;
  readonly credentialMissing: (connectorId: string) => string;
}

/**
 * The connect form's check (spec `connector.connect`), before a submitted credential is stored:
 * the connector's `verify` read tool runs once with it — one real upstream request under the
 * connector's policy (deadline, no redirects, size cap), not metered. The upstream refusing it
 * (an `auth` failure, or a reconnect text of the tool) is `rejected` with the spec's `rejected`
 * text; any other failure is `unverified`. Log lines name the outcome, never the credential
 * (they are scrubbed of it like a call's).
 */
export async function checkCredential(
  check: ConnectCheck,
  endpoint: Endpoint,
  accountId: string,
  values: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<CredentialVerdict> {
  const connector = endpoint.connector;
  const { descriptor, config } = connector;
  if (descriptor.appSecret && !config.appSecret)
    return { ok: false, reason: 'not_configured', text: check.credentialMissing(config.id) };
  const connect = descriptor.connect;
  if (!connect) return { ok: true };
  const { texts, log } = check;
  const logBase = { connector: config.id, instance: endpoint.instanceId, accountId };
  const fields = { ...logBase, tool: connect.verify };
  const unverified = (): CredentialVerdict => ({
    ok: false,
    reason: 'unverified',
    text: texts.render('connect_unverified'),
  });
  const tool = connector.tools.get(connect.verify);
  const handler = connector.handlers[connect.verify];
  const validator = connector.validators[`input_${connect.verify}`];
  const args = tool && validator ? checkArguments(tool, validator, {}) : undefined;
  if (!tool || !handler || !args?.ok) {
    log.error(fields, 'connect check impossible: the verify tool has no handler or takes arguments');
    return unverified();
  }
  const credential = tenantCredential(connector, values);
  const redactor = Redactor.of(credential);
  return redactor.run(async () => {
    // The same opening as a call's, never writing, metered by nobody.
    const { ctx } = openCall(check.services, {
      descriptor,
      connectorId: config.id,
      baseUrl: config.baseUrl,
      instanceId: endpoint.instanceId,
      accountId,
      tool,
      credential,
      signal,
      trace: startTrace(),
      confirmed: false,
      mayWrite: false,
      dataLayer: undefined,
      texts,
      redactor,
      logger: log,
      logFields: logBase,
    });
    try {
      await handler(args.args, ctx);
      log.info({ ...fields, outcome: 'ok' }, 'connect check');
      return { ok: true };
    } catch (error) {
      const status =
        error instanceof UpstreamError && error.kind === 'auth'
          ? error.status
          : error instanceof ToolError && texts.entry(error.code)?.reconnect
            ? (error.params.status ?? error.code)
            : undefined;
      if (status !== undefined) {
        log.info({ ...fields, outcome: 'rejected', status }, 'connect check');
        return { ok: false, reason: 'rejected', text: texts.render(connect.rejected, { status }) };
      }
      const kind =
        error instanceof UpstreamError
          ? `upstream_${error.kind}`
          : error instanceof ToolError
            ? error.code
            : 'handler_error';
      log.warn(
        {
          ...fields,
          outcome: kind,
          ...(error instanceof UpstreamError && error.status ? { status: error.status } : {}),
        },
        'connect check',
      );
      return unverified();
    }
  });
}
