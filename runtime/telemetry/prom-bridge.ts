// The gateway's Prometheus registry (observability.ts) read as OpenTelemetry metric data, so the
// OTLP export carries exactly the series `/metrics` serves, under the same names and labels, from
// one set of counters (docs/decisions/telemetry.md, 'Metrics: the Prometheus registry, bridged').
// Read only when the metric reader collects (every OTEL_METRIC_EXPORT_INTERVAL and at shutdown):
// the call path records nothing twice.
import { type Attributes, type HrTime, ValueType } from '@opentelemetry/api';
import { emptyResource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  type CollectionResult,
  type DataPoint,
  DataPointType,
  type MetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';
import type { Registry } from 'prom-client';

type PromMetric = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];
type PromValue = PromMetric['values'][number] & { metricName?: string };
type Histogram = DataPoint<{ buckets: { boundaries: number[]; counts: number[] }; sum: number; count: number }>;

function hr(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6))];
}

function attributes(labels: PromValue['labels'], without?: string): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(labels)) if (k !== without && v !== undefined) out[k] = String(v);
  return out;
}

/** A prom-client histogram's cumulative `le` buckets, `_sum` and `_count` as one OTel point per label set. */
function histogramPoints(metric: PromMetric, start: HrTime, end: HrTime): Histogram[] {
  const series = new Map<
    string,
    { attributes: Attributes; buckets: Array<[number, number]>; sum: number; count: number }
  >();
  for (const value of metric.values as PromValue[]) {
    const attrs = attributes(value.labels, 'le');
    const key = JSON.stringify(attrs);
    let s = series.get(key);
    if (s === undefined) {
      s = { attributes: attrs, buckets: [], sum: 0, count: 0 };
      series.set(key, s);
    }
    if (value.metricName?.endsWith('_bucket')) {
      const le = value.labels.le;
      s.buckets.push([le === '+Inf' || le === undefined ? Number.POSITIVE_INFINITY : Number(le), value.value]);
    } else if (value.metricName?.endsWith('_sum')) s.sum = value.value;
    else if (value.metricName?.endsWith('_count')) s.count = value.value;
  }
  return [...series.values()].map((s) => {
    s.buckets.sort((a, b) => a[0] - b[0]);
    const boundaries = s.buckets.filter(([le]) => Number.isFinite(le)).map(([le]) => le);
    // Cumulative (Prometheus) to per-bucket (OTLP) counts; the last bucket is +Inf.
    let before = 0;
    const counts = s.buckets.map(([, cumulative]) => {
      const n = cumulative - before;
      before = cumulative;
      return n;
    });
    if (counts.length === boundaries.length) counts.push(s.count - before);
    return {
      startTime: start,
      endTime: end,
      attributes: s.attributes,
      value: { buckets: { boundaries, counts }, sum: s.sum, count: s.count },
    };
  });
}

function toMetricData(metric: PromMetric, start: HrTime, end: HrTime): MetricData | undefined {
  const descriptor = { name: metric.name, description: metric.help, unit: '', valueType: ValueType.DOUBLE };
  const points = () =>
    (metric.values as PromValue[]).map((v) => ({
      startTime: start,
      endTime: end,
      attributes: attributes(v.labels),
      value: v.value,
    }));
  switch (String(metric.type)) {
    case 'counter':
      return {
        descriptor,
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.SUM,
        isMonotonic: true,
        dataPoints: points(),
      };
    case 'gauge':
      return {
        descriptor,
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.GAUGE,
        dataPoints: points(),
      };
    case 'histogram':
      return {
        descriptor,
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.HISTOGRAM,
        dataPoints: histogramPoints(metric, start, end),
      };
    default:
      // Summaries: the gateway registers none; their quantiles have no OTLP point type to map to.
      return undefined;
  }
}

/** A MetricProducer over a prom-client registry: cumulative sums, gauges and explicit-bucket histograms. */
export function prometheusProducer(registry: Registry, scopeName: string, startedMs = Date.now()): MetricProducer {
  const start = hr(startedMs);
  return {
    async collect(): Promise<CollectionResult> {
      const errors: unknown[] = [];
      let metrics: PromMetric[] = [];
      try {
        metrics = await registry.getMetricsAsJSON();
      } catch (error) {
        errors.push(error);
      }
      const end = hr(Date.now());
      const data = metrics.flatMap((m) => {
        const d = toMetricData(m, start, end);
        return d === undefined || d.dataPoints.length === 0 ? [] : [d];
      });
      return {
        resourceMetrics: { resource: emptyResource(), scopeMetrics: [{ scope: { name: scopeName }, metrics: data }] },
        errors,
      };
    },
  };
}
