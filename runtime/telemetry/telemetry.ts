// OpenTelemetry export of tools/call spans, their upstream requests and the gateway's metrics
// (docs/decisions/telemetry.md, 'OpenTelemetry only when the OTLP variables are set'). Nothing here
// or in call-telemetry.ts imports OpenTelemetry: `startTelemetry` loads `./otel.ts` (and with it
// the SDK) by a dynamic import only when an OTLP endpoint is configured. Otherwise the gateway
// context has no `telemetry` and the call path pays one `undefined` check per hook.
import type { Logger } from 'pino';
import type { Metrics } from '../operations/observability.ts';
import type { Telemetry, TelemetryEnv, TelemetrySignals } from './call-telemetry.ts';

const set = (value: string | undefined): boolean => value !== undefined && value.trim() !== '';

/** The signals to export: an endpoint for all (`OTEL_EXPORTER_OTLP_ENDPOINT`) or per signal. */
export function telemetrySignals(env: TelemetryEnv): TelemetrySignals {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { traces: false, metrics: false };
  const all = set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  return {
    traces: (all || set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) && env.OTEL_TRACES_EXPORTER?.trim() !== 'none',
    metrics: (all || set(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)) && env.OTEL_METRICS_EXPORTER?.trim() !== 'none',
  };
}

/**
 * Telemetry when the standard OTLP variables ask for it, else undefined without loading anything
 * of OpenTelemetry. The OTLP exporters read their own variables (endpoints, headers, timeouts,
 * protocol details) as the specification defines them.
 */
export async function startTelemetry(
  env: TelemetryEnv,
  deps: { readonly metrics: Metrics; readonly log: Logger },
): Promise<Telemetry | undefined> {
  const signals = telemetrySignals(env);
  if (!signals.traces && !signals.metrics) return undefined;
  const { startOpenTelemetry } = await import('./otel.ts');
  return startOpenTelemetry(env, signals, deps);
}
