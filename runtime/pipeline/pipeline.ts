// tools/call, in the order of DECISIONS §6: tool name → subscription → seat → connection →
// fair-use block → argument validation → upstream (handler) → result envelope → meter. Each step is
// a small function returning a refusal or nothing; the texts come from the generated descriptors.
// The steps are numbered as IMPLEMENTED_CHECK_ORDER (check-order.ts), which the constructor checks
// against the order the spec declares and the catalog publishes: reorder the steps only with it.
// The data passed along is in call-types.ts; refusals and the links they carry in refusals.ts; the
// connect form's credential check in connect-check.ts.
import { checkArguments } from './arguments.ts';
import { ConnectorTexts } from './call-context.ts';
import {
  type CallLogFields,
  type CallPlan,
  type CallToolResult,
  type CredentialVerdict,
  loggedToolName,
  scrubResult,
  textResult,
  type ToolCallRequest,
} from './call-types.ts';
import { assertCheckOrder } from './check-order.ts';
import { type ConnectCheck, checkCredential } from './connect-check.ts';
import { failureAnswer } from './failure-answer.ts';
import { Refusals } from './refusals.ts';
import { CallCredentials } from './call-credential.ts';
import { type CallServices, callServices, openCall } from './open-call.ts';
import type { Endpoint, GatewayContext } from '../gateway-context.ts';
import type { Identity } from '../store/state.ts';
import type { LinkIssuer } from '../secrets/signed-links.ts';
import { HandlerNotImplementedError } from '../handler-api/stub.ts';
import type { FailArgs } from '../handler-api/tool-context.ts';
import type { PlatformErrorParams } from '#generated/platform/descriptor.ts';
import { formatText, type ErrorParams } from '../handler-api/tool-error.ts';
import { bindDataLayer } from '../store/data-layer.ts';
import { Redactor } from '../redact.ts';
import { callLine } from '../operations/observability.ts';
import { newSpanId, startTrace, type TraceContext } from '../trace-context.ts';
import { allows, EVERY_TOOL } from '../tool-selection.ts';
import { isConfirmed, WriteDedup, writeKey } from './write-guard.ts';
import { askPerson, personStep, type PersonServices } from './person-confirm.ts';
import { InputRequired } from '../handler-api/input-requests.ts';
import { InputRefused, inputRound, inputServices, type InputServices, openInput } from './call-input.ts';

/** How often a confirmed write waiting for an identical one on another replica reads its outcome. */
const WRITE_DEDUP_POLL_MS = 50;

export class Pipeline {
  readonly #g: GatewayContext;
  /** Spec texts per connector, made once. */
  readonly #texts = new WeakMap<object, ConnectorTexts>();
  /** Confirmed writes: one per key and window, across replicas (DECISIONS §17). */
  readonly #writes: WriteDedup;
  /** Refusals and tool error texts, with the links they carry. */
  readonly #refusals: Refusals;
  /** What opening a call needs from the gateway (open-call.ts), made once. */
  readonly #services: CallServices;
  /** Writes the person confirms (person-confirm.ts), made once. */
  readonly #personServices: PersonServices;
  /** A handler's input rounds (call-input.ts; a retry that must not reach it is refused unmetered), made once. */
  readonly #inputs: InputServices;
  /** Step 4: the call's credential (call-credential.ts), made once. */
  readonly #credentials: CallCredentials;

  constructor(gateway: GatewayContext, links: LinkIssuer) {
    // Once at start-up, never per call: the published check order must be the one made below.
    assertCheckOrder(gateway.platform.checkOrder);
    this.#g = gateway;
    this.#refusals = new Refusals(gateway, links);
    this.#credentials = new CallCredentials(gateway, this.#refusals, {
      of: (endpoint) => this.#textsOf(endpoint),
      platform: (...args) => this.platformText(...args),
    });
    this.#writes = new WriteDedup({
      store: gateway.store,
      now: () => gateway.now().getTime(),
      pollMs: WRITE_DEDUP_POLL_MS,
    });
    this.#personServices = {
      vault: gateway.vault,
      writes: gateway.store.writes,
      now: () => gateway.now().getTime(),
      platform: gateway.platform,
    };
    this.#inputs = inputServices(gateway);
    this.#services = callServices(gateway);
  }

  #textsOf(endpoint: Endpoint): ConnectorTexts {
    // Per instance: its texts name sibling tools as its clients call them.
    let texts = this.#texts.get(endpoint);
    if (!texts) {
      texts = new ConnectorTexts(endpoint.connector.descriptor, this.#g.platform, endpoint.instanceId);
      this.#texts.set(endpoint, texts);
    }
    return texts;
  }

  /** A platform text (specs/platform.yaml `errors`), typed: a wrong code or a missing parameter does not compile. */
  platformText(...[code, params]: FailArgs<PlatformErrorParams>): string {
    return formatText(this.#g.platform.errors[code].text, params ?? {});
  }

  /**
   * One tools/call. `trace` is the caller's trace context (`traceContextFrom(params._meta,
   * headers)`); without one the call starts a new trace, so every call has a trace id in its log
   * lines and upstream requests. Rejects only with InputRefused (call-input.ts), a protocol error.
   */
  call(request: ToolCallRequest): Promise<CallToolResult> {
    const trace = request.trace ?? startTrace();
    // With OpenTelemetry on, the call's span (runtime/telemetry/telemetry.ts) gives the call its span id.
    const span = this.#g.telemetry?.startCall(trace, request.endpoint.connector.config.id, request.endpoint.instanceId);
    const answer = this.#call(request, trace, span?.spanId);
    return span === undefined ? answer : this.#g.telemetry!.endCall(span, answer);
  }

  /**
   * A fault nothing along the call handled (a store operation that failed or passed its deadline
   * where no step expected one): a tools/call never becomes a protocol error, so it answers the
   * generic text as a tool result. Logged with the account, the connector instance and the tool.
   */
  #fault({ endpoint, identity, name, reqId }: ToolCallRequest, trace: TraceContext, error: unknown): CallToolResult {
    const { config } = endpoint.connector;
    this.#g.log.error(
      {
        reqId,
        connector: config.id,
        instance: endpoint.instanceId,
        accountId: identity.account.id,
        userId: identity.user.id,
        traceId: trace.traceId,
        tool: loggedToolName(name, endpoint.instanceId),
        err: { message: (error as Error)?.message, name: (error as Error)?.name },
      },
      'tool call failed; answering the generic text',
    );
    return textResult(this.platformText('generic'), true);
  }

  async #call(request: ToolCallRequest, trace: TraceContext, spanId = newSpanId()): Promise<CallToolResult> {
    // One try for the whole call rather than a `.catch` on its promise: a promise and a hop fewer per call.
    try {
      const { endpoint, identity, name, rawArgs, signal, reqId } = request;
      const connector = endpoint.connector;
      // Log fields of this call; a child logger is made only if a handler asks for one.
      const fields: CallLogFields = {
        reqId,
        connector: connector.config.id,
        instance: endpoint.instanceId,
        accountId: identity.account.id,
        userId: identity.user.id,
        tokenId: identity.tokenId,
        traceId: trace.traceId,
        spanId,
      };
      const prefix = `${endpoint.instanceId}__`;
      // 1. tool_name: namespaced to this instance, or the unprefixed system tool where it is listed.
      if (typeof name === 'string' && name === 'connect_account' && connector.descriptor.connectAccount)
        return await this.#connectAccount(endpoint, identity, fields);
      const found =
        typeof name === 'string' && name.startsWith(prefix)
          ? connector.tools.get(name.slice(prefix.length))
          : undefined;
      // A tool outside the client's selection is unknown like one the endpoint does not serve
      // (docs/decisions/mcp-surface.md, 'Toolsets and read-only chosen by the client, by header or path').
      const tool =
        found &&
        (request.selection === undefined || request.selection === EVERY_TOOL || allows(request.selection, found))
          ? found
          : undefined;
      // The name as asked (cut short: it is the caller's input) is logged for an unknown tool.
      if (!tool)
        return this.#refusals.refuse(
          endpoint,
          fields,
          typeof name === 'string' ? name.slice(0, 100) : typeof name,
          'unknown_tool',
          this.platformText('unknown_tool'),
        );
      // Steps 2–5, and step 7's person-confirm step and input, answer without a promise when nothing
      // is refused or stored (docs/decisions/performance.md, 'No await where the answer is at hand').
      // 2–3. subscription, seat.
      if (!this.#refusals.entitled(endpoint, identity)) {
        const refused = await this.#refusals.entitlement(endpoint, identity, fields, tool.name);
        if (refused) return refused;
      }
      // 4. connection (a tenant credential of this very instance, or the deployment's managed one).
      const opened = this.#credentials.of(endpoint, identity, fields, tool.name);
      const credential = opened instanceof Promise ? await opened : opened;
      if ('refusal' in credential) return credential.refusal;
      // 5. fair_use (hard mode blocks; the unit is reserved atomically).
      const now = this.#g.now();
      const deciding = this.#g.meter.check(identity.account, now);
      const fairUse = deciding instanceof Promise ? await deciding : deciding;
      if (fairUse.blocked) {
        const { month, used, limit } = fairUse;
        void this.#refusals.notices.quotaReached(identity.account, month, used, limit);
        const text = this.#g.config.selfService.quota ? 'fair_use_blocked_self_service' : 'fair_use_blocked';
        const params = { connector_id: connector.config.id, month, used, limit };
        return this.#refusals.refuse(endpoint, fields, tool.name, 'fair_use_blocked', this.platformText(text, params));
      }
      // 6. arguments, with the generated validator; invalid arguments make no upstream request.
      const validator = connector.validators[`input_${tool.name}`];
      const checked = validator
        ? checkArguments(tool, validator, rawArgs)
        : { ok: false as const, reason: 'no validator' };
      if (!checked.ok) {
        if (fairUse.reservation) await this.#g.meter.release(fairUse.reservation);
        return this.#refusals.refuse(
          endpoint,
          fields,
          tool.name,
          'invalid_arguments',
          this.#connectorText(endpoint, 'generic', {}),
          checked.reason,
        );
      }
      // 7. upstream: metered once, whatever the outcome (unless the handler refuses the arguments first).
      // From here on an upstream may echo the connection's secret: every log line written inside
      // the call and the result it returns are scrubbed of it (redact.ts).
      const redactor = Redactor.of(credential.credential);
      const plan: CallPlan = {
        endpoint,
        identity,
        tool,
        args: checked.args,
        credential: credential.credential,
        signal,
        fields,
        trace,
        now,
        reservation: fairUse.reservation,
        redactor,
        progress: request.progress,
        personConfirm: request.personConfirm,
      };
      // Scrubbed outside the redactor's scope (scrubResult names its redactor): no closure per call.
      const result = await redactor.run(() => this.#run(plan));
      return scrubResult(result, redactor);
    } catch (error) {
      if (error instanceof InputRefused) throw error;
      return this.#fault(request, trace, error);
    }
  }

  /** The connect form's check of a submitted credential (connect-check.ts), with this pipeline's texts and log. */
  checkCredential(
    endpoint: Endpoint,
    accountId: string,
    values: Readonly<Record<string, string>>,
    signal: AbortSignal,
  ): Promise<CredentialVerdict> {
    const check: ConnectCheck = {
      services: this.#services,
      texts: this.#textsOf(endpoint),
      log: this.#g.log,
      credentialMissing: (connectorId) => this.platformText('credential_missing', { connector_id: connectorId }),
    };
    return checkCredential(check, endpoint, accountId, values, signal);
  }

  #connectorText(endpoint: Endpoint, code: string, params: ErrorParams): string {
    return this.#textsOf(endpoint).render(code, params);
  }

  /**
   * Step 7: the handler, with the call opened by `openCall` (context, upstream client, request log);
   * metered once whatever the outcome, unless the handler refuses its arguments before any upstream
   * request. A failure is answered as `failureAnswer` decides.
   */
  async #run(plan: CallPlan): Promise<CallToolResult> {
    const stepped = personStep(this.#personServices, plan);
    const step = stepped instanceof Promise ? await stepped : stepped;
    if (step.kind === 'answer') {
      this.#g.log.info({ ...plan.fields, tool: plan.tool.name, outcome: step.code }, 'write not confirmed');
      this.#g.callLog.record(plan.fields, plan.tool.name, 'refused', step.code, null);
      return step.result;
    }
    const opened = step.kind === 'none' ? openInput(this.#inputs, plan) : undefined;
    const input = opened instanceof Promise ? await opened : opened;
    const { endpoint, identity, tool, args, fields, now, reservation } = plan;
    const g = this.#g;
    const connector = endpoint.connector;
    const started = performance.now();
    const connectorId = connector.config.id;
    let outcome = 'ok';
    let metered = true;
    const texts = this.#textsOf(endpoint);
    const confirmed = tool.write && isConfirmed(args) && step.kind !== 'ask';
    const { ctx, upstream } = openCall(this.#services, {
      descriptor: connector.descriptor,
      connectorId,
      baseUrl: connector.config.baseUrl,
      instanceId: endpoint.instanceId,
      accountId: identity.account.id,
      tool,
      credential: plan.credential,
      signal: plan.signal,
      trace: plan.trace,
      spanId: fields.spanId,
      confirmed,
      expectPreview: step.kind === 'write' ? step.previewDigest : undefined,
      mayWrite: true,
      dataLayer: tool.dataLayer ? bindDataLayer(g.store, identity.account.id, endpoint.instanceId) : undefined,
      texts,
      redactor: plan.redactor,
      logger: g.log,
      logFields: fields,
      progress: plan.progress,
      input,
    });
    try {
      const handler = connector.handlers[tool.name];
      if (!handler) throw new HandlerNotImplementedError(connector.config.key, tool.name);
      let result: unknown;
      if (confirmed) {
        // DECISIONS §17: an identical confirmed write within the window gets the first outcome.
        const windowMs = (ctx.limits as Readonly<Record<string, number>>).writeDedupWindowMs;
        if (windowMs === undefined)
          throw new Error(`write tool ${tool.name} without the connector limit writeDedupWindowMs`);
        result = await this.#writes.run(
          writeKey(identity.account.id, endpoint.instanceId, tool.name, args),
          windowMs,
          plan.signal,
          () => handler(args, ctx),
        );
      } else {
        result = await handler(args, ctx);
      }
      if (step.kind === 'ask') {
        const asked = await askPerson(this.#personServices, plan, result);
        if (asked.kind === 'answer' || asked.kind === 'input_required') return asked.result;
        if (asked.kind === 'write')
          return await this.#run({ ...plan, personConfirm: { elicitation: true, accepted: asked.previewDigest } });
      }
      const text = JSON.stringify(result ?? null);
      const envelope: CallToolResult = { content: [{ type: 'text', text }] };
      if (connector.descriptor.structuredContent && result && typeof result === 'object' && !Array.isArray(result))
        envelope.structuredContent = result as Record<string, unknown>;
      return envelope;
    } catch (error) {
      if (error instanceof InputRequired) {
        outcome = 'input_required';
        return await inputRound(this.#inputs, plan, error, (next) => this.#run(next));
      }
      const answer = failureAnswer(error, {
        upstreamRequests: upstream.requests,
        upstreamCode: (kind) => texts.forUpstream(tool, kind),
      });
      switch (answer.kind) {
        case 'refusal':
          // Refused by the handler before any upstream request: like a schema refusal, not metered.
          metered = false;
          outcome = 'invalid_arguments';
          return this.#refusals.refuse(
            endpoint,
            fields,
            tool.name,
            'invalid_arguments',
            texts.render(answer.code, answer.params),
            answer.detail,
          );
        case 'text':
          outcome = answer.outcome;
          return this.#refusals.answer(endpoint, identity, fields, tool.name, texts, answer.code, answer.params);
      }
      outcome = answer.outcome;
      g.log[answer.log.level]({ ...fields, tool: tool.name, ...answer.log.fields }, answer.log.message);
      return textResult(this.platformText('generic'), true);
    } finally {
      if (metered) g.meter.record(identity.account.id, connectorId, tool.name, now, reservation);
      else if (reservation) await g.meter.release(reservation);
      const seconds = (performance.now() - started) / 1000;
      g.metrics.toolCalls.inc(connectorId, tool.name, outcome);
      if (tool.deprecated) g.metrics.deprecatedToolCalls.inc(connectorId, tool.name, outcome);
      g.telemetry?.outcome(fields.spanId, tool.name, outcome);
      g.metrics.callDuration.observeIn(seconds, connectorId);
      if (metered) g.callLog.record(fields, tool.name, outcome === 'ok' ? 'ok' : 'error', outcome, seconds * 1000);
      if (g.config.logToolCalls) callLine(g.log, fields, tool.name, outcome, Math.round(seconds * 1000));
    }
  }

  /** Gateway rule 4: a single-use link to the portal connect form of this endpoint. Not metered. */
  async #connectAccount(endpoint: Endpoint, identity: Identity, fields: CallLogFields): Promise<CallToolResult> {
    const refused = await this.#refusals.entitlement(endpoint, identity, fields, 'connect_account');
    if (refused) return refused;
    const { config, descriptor } = endpoint.connector;
    if (!identity.user.termsAcceptedAt) {
      const text = await this.#refusals.linkedText(
        'connect_terms_required',
        'terms',
        'terms_url',
        { connector_id: config.id },
        identity,
        endpoint,
        fields,
        'connect_account',
      );
      return this.#refusals.refuse(endpoint, fields, 'connect_account', 'terms_required', text);
    }
    // The link is the whole answer: without one (the store is unavailable) nothing sensible is left but the generic
    // text.
    const connectUrl = await this.#refusals.tryLink('connect', identity, endpoint, fields, 'connect_account');
    if (connectUrl === undefined) return textResult(this.platformText('generic'), true);
    const instructions = formatText(this.#g.platform.instructions.connect_account, {
      connector_title: descriptor.title,
      instance_id: endpoint.instanceId,
    });
    return { content: [{ type: 'text', text: JSON.stringify({ connect_url: connectUrl, instructions }) }] };
  }
}
