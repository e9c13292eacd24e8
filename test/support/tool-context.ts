// The real ToolContext for handler tests: opened as the pipeline opens a call (runtime/pipeline/open-call.ts),
// with the connector's generated policy, a real upstream client (nock or a sandbox answers it), and
// `fail`/`refuseArguments` throwing what the runtime turns into the spec's texts.
import pino, { type Logger } from 'pino';
import { platformDescriptor } from '../../generated/platform/descriptor.ts';
import { ConnectorTexts } from '../../runtime/pipeline/call-context.ts';
import { openCall } from '../../runtime/pipeline/open-call.ts';
import { Redactor } from '../../runtime/redact.ts';
import type { ConnectorDescriptor } from '../../runtime/handler-api/descriptor-types.ts';
import type { Credential, DataLayer, ToolContext } from '../../runtime/handler-api/tool-context.ts';
import type { UpstreamClient } from '../../runtime/handler-api/upstream-types.ts';
import type { UpstreamClientOptions } from '../../runtime/upstream/client.ts';
import { newSecretKey, Vault } from '../../runtime/secrets/vault.ts';
import { UpstreamQuotas } from '../../runtime/metering/rate-limit.ts';

/** The vault behind `ctx.tokens` in handler tests (one per test process, like one gateway). */
const testVault = new Vault({ 1: newSecretKey() });

export interface TestContextOptions {
  readonly descriptor: ConnectorDescriptor;
  readonly tool: string;
  readonly credential: Credential | null;
  readonly baseUrl?: string;
  readonly instanceId?: string;
  readonly accountId?: string;
  readonly now?: () => Date;
  readonly sleep?: UpstreamClientOptions['sleep'];
  /** A write tool's `confirm` as the pipeline decides it (the boolean true only). */
  readonly confirmed?: boolean;
  /** The per-key upstream budgets (default: a fresh per-process set for this context that never waits). */
  readonly upstreamQuotas?: UpstreamQuotas;
  /** Replaces the connector's upstream policy (for example to show a write opts out of a throttle retry). */
  readonly policy?: ConnectorDescriptor['upstream'];
  /** The handler's `ctx.log` (default: silent). */
  readonly logger?: Logger;
  /** Replaces the upstream client (a fault made by hand). */
  readonly upstream?: UpstreamClient;
  /** Wraps the handler's `ctx.upstream` (to record what a handler sends, say). */
  readonly wrapUpstream?: (client: UpstreamClient) => UpstreamClient;
  /** The connection's data layer, for a tool whose spec sets `dataLayer: true`. */
  readonly dataLayer?: DataLayer;
}

/**
 * Typed loosely on purpose (`any` codes and limits): a test hands it to one tool's handler, whose
 * generated contract types the codes it may raise and the limits it reads.
 */
export type TestToolContext = ToolContext<any, any, any>;

export function testContext(options: TestContextOptions): TestToolContext {
  const tool = options.descriptor.tools.find((t) => t.name === options.tool);
  if (!tool) throw new Error(`no tool ${options.tool}`);
  const controller = new AbortController();
  const instanceId = options.instanceId ?? options.descriptor.defaultId;
  // The pipeline's own opening of a call (runtime/pipeline/open-call.ts), with a test's services.
  const { ctx } = openCall(
    {
      vault: testVault,
      upstreamQuotas:
        options.upstreamQuotas ??
        new UpstreamQuotas(
          undefined,
          () => {},
          async () => {},
        ),
      now: options.now ?? (() => new Date()),
      timeZone: 'Europe/Copenhagen',
      upstreamSleep: options.sleep ?? (async () => {}),
    },
    {
      descriptor: options.descriptor,
      connectorId: options.descriptor.defaultId,
      baseUrl: options.baseUrl,
      instanceId,
      accountId: options.accountId ?? 'acc_test',
      tool,
      credential: options.credential,
      signal: controller.signal,
      trace: undefined,
      confirmed: options.confirmed === true,
      mayWrite: true,
      dataLayer: options.dataLayer,
      texts: new ConnectorTexts(options.descriptor, platformDescriptor, instanceId),
      redactor: Redactor.of(options.credential),
      logger: options.logger ?? pino({ level: 'silent' }),
      logFields: undefined,
      ...(options.policy ? { policy: options.policy } : {}),
      ...(options.upstream ? { upstream: options.upstream } : {}),
      ...(options.wrapUpstream ? { wrapUpstream: options.wrapUpstream } : {}),
    },
  );
  return ctx;
}

/** A `wrapUpstream` that adds the HTTP method of every request the handler sends to `methods`. */
export function recordingMethods(methods: Set<string>): (inner: UpstreamClient) => UpstreamClient {
  return (inner) => ({
    baseUrl: inner.baseUrl,
    request(request) {
      methods.add(request.method);
      return inner.request(request);
    },
  });
}
