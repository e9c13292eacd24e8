// The gateway's plain-JSON and text routes beside the MCP endpoints: the usage API (a caller token's
// own account), readiness and the Prometheus metrics. Each answers its request and gives its status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayContext } from '../gateway-context.ts';
import { sendJson } from '../io/http-io.ts';
import { protocolText } from '../protocol-text.ts';
import { type AuthFailures, checkCaller, type IdentityLookup } from './checks.ts';

/** GET /api/usage: the caller's account's usage record, plain JSON (not JSON-RPC). */
export async function usage(
  gateway: GatewayContext,
  req: IncomingMessage,
  res: ServerResponse,
  identify: IdentityLookup,
  failures: AuthFailures,
): Promise<number> {
  const caller = await checkCaller(req.headers.authorization, identify, failures);
  if (!caller.ok) {
    // The usage API answers plain JSON, not JSON-RPC.
    const text =
      caller.status === 503 ? 'usage_unavailable' : caller.status === 429 ? 'auth_rate_limited' : 'usage_unauthorized';
    sendJson(res, caller.status, JSON.stringify({ error: protocolText(text) }), caller.headers);
    return caller.status;
  }
  const account = gateway.state.account(caller.identity.account.id) ?? caller.identity.account;
  let record: unknown;
  try {
    record = await gateway.meter.usageRecord(account, gateway.now());
  } catch (error) {
    // The database is away or passed its deadline: an operator-facing plain JSON error.
    gateway.log.warn({ err: { message: (error as Error)?.message } }, 'usage record unavailable');
    sendJson(res, 503, JSON.stringify({ error: protocolText('usage_unavailable') }), { 'retry-after': '5' });
    return 503;
  }
  sendJson(res, 200, JSON.stringify(record));
  return 200;
}

/** GET /readyz: 200 when every required check passes (degraded ones named), else 503 with the failing ones. */
export async function readyz(gateway: GatewayContext, req: IncomingMessage, res: ServerResponse): Promise<number> {
  req.resume();
  const report = gateway.readiness
    ? await gateway.readiness.evaluate()
    : { ready: true, checks: {}, failing: [], degraded: [] };
  const status = report.ready ? 200 : 503;
  sendJson(
    res,
    status,
    JSON.stringify(
      report.ready
        ? {
            status: 'ready',
            ...(report.degraded.length > 0 ? { degraded: report.degraded } : {}),
            checks: report.checks,
          }
        : { status: 'not_ready', failing: report.failing, checks: report.checks },
    ),
  );
  return status;
}

/** GET /metrics: the registry in Prometheus's text format. */
export async function metricsPage(gateway: GatewayContext, res: ServerResponse): Promise<number> {
  const text = await gateway.metrics.registry.metrics();
  res.writeHead(200, { 'content-type': gateway.metrics.registry.contentType });
  res.end(text);
  return 200;
}
