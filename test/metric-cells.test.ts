// The cell-counted metrics (runtime/operations/metric-cells.ts) expose exactly what prom-client's own
// Counter and Histogram expose for the same observations.
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CellCounter, CellHistogram } from '../runtime/operations/metric-cells.ts';

const BUCKETS = [0.005, 0.01, 0.1, 1, 10];
const OBSERVED: [number, string, string][] = [
  [0.001, 'register', 'ok'],
  [0.005, 'register', 'ok'],
  [0.0051, 'register', 'timeout'],
  [0.5, 'books', 'ok'],
  [10, 'books', 'ok'],
  [42, 'register', 'ok'],
  [0, 'books', 'error'],
];

/** The exposition's sample lines, sorted, with each line's labels sorted (order is not meaning). */
function samples(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const m = /^([^{ ]+)(?:\{(.*)\})? (.+)$/.exec(line);
      if (!m) throw new Error(`not a sample line: ${line}`);
      const labels = (m[2] ?? '').split(',').filter(Boolean).sort().join(',');
      return `${m[1]}{${labels}} ${m[3]}`;
    })
    .sort();
}

describe('cell-counted metrics', () => {
  it('a CellHistogram exposes what a prom-client Histogram does for the same observations', async () => {
    const mine = new Registry();
    const theirs = new Registry();
    const config = { name: 'h_seconds', help: 'h', labelNames: ['connector', 'outcome'] as const, buckets: BUCKETS };
    const cells = new CellHistogram({ ...config, registers: [mine] });
    const plain = new Histogram({ ...config, buckets: [...BUCKETS], registers: [theirs] });
    for (const [v, connector, outcome] of OBSERVED) {
      cells.observeIn(v, connector, outcome);
      plain.observe({ connector, outcome }, v);
    }
    const text = await mine.metrics();
    expect(samples(text)).toEqual(samples(await theirs.metrics()));
    expect(text).toContain('# TYPE h_seconds histogram');
    expect(samples(text)).toContain('h_seconds_bucket{connector="register",le="+Inf",outcome="ok"} 3');
    expect((await cells.get()).values).toEqual(
      expect.arrayContaining([
        { value: 2, labels: { connector: 'books', outcome: 'ok' }, metricName: 'h_seconds_count' },
      ]),
    );
  });

  it('reset empties it, and a value that is not a finite number is not observed', async () => {
    const registry = new Registry();
    const cells = new CellHistogram({
      name: 'r_seconds',
      help: 'r',
      labelNames: ['c'],
      buckets: BUCKETS,
      registers: [registry],
    });
    cells.observeIn(1, 'a');
    cells.observeIn(Number.NaN, 'a');
    expect(samples(await registry.metrics())).toContain('r_seconds_count{c="a"} 1');
    registry.resetMetrics();
    expect(samples(await registry.metrics())).toEqual([]);
    cells.observeIn(2, 'b');
    expect(samples(await registry.metrics())).toContain('r_seconds_sum{c="b"} 2');
  });

  it('a CellCounter exposes what a prom-client Counter does', async () => {
    const mine = new Registry();
    const theirs = new Registry();
    const config = { name: 'c_total', help: 'c', labelNames: ['connector', 'tool', 'outcome'] as const };
    const cells = new CellCounter({ ...config, registers: [mine] });
    const plain = new Counter({ ...config, registers: [theirs] });
    for (const [, connector, outcome] of OBSERVED) {
      cells.inc(connector, 'hent', outcome);
      plain.inc({ connector, tool: 'hent', outcome });
    }
    expect(samples(await mine.metrics())).toEqual(samples(await theirs.metrics()));
  });
});
