// Per-request metrics counted in plain cells, handed to prom-client when they are read (a scrape):
// prom-client's own `inc(labels)` and `observe(labels, v)` check the label object and build and hash
// a key from it on every call, which the request and call path paid on every request and call. Here
// one Map lookup per label value finds the cell (the values are few: routes, methods, statuses,
// connectors, tools, outcomes), and the exposition is prom-client's own format.
import { Counter, Histogram, type Registry } from 'prom-client';

/** A label value as counted: a number (an HTTP status) is written as its decimal text. */
type LabelValue = string | number;

/** The cells of one metric, found by their label values in the order of `labelNames`. */
class Cells<C extends { readonly labels: Record<string, string> }> {
  readonly all: C[] = [];
  readonly #root = new Map<LabelValue, unknown>();
  readonly #names: readonly string[];
  readonly #make: (labels: Record<string, string>) => C;

  constructor(names: readonly string[], make: (labels: Record<string, string>) => C) {
    this.#names = names;
    this.#make = make;
  }

  find(values: readonly LabelValue[]): C {
    let level = this.#root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Map<LabelValue, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(values[i]!, next);
      }
      level = next;
    }
    let cell = level.get(values[last]!) as C | undefined;
    if (cell === undefined) {
      const labels: Record<string, string> = {};
      this.#names.forEach((name, i) => {
        labels[name] = String(values[i]);
      });
      cell = this.#make(labels);
      level.set(values[last]!, cell);
      this.all.push(cell);
    }
    return cell;
  }

  clear(): void {
    this.#root.clear();
    this.all.length = 0;
  }
}

interface CountCell {
  readonly labels: Record<string, string>;
  value: number;
}

/** A labelled Prometheus counter counted in plain cells. */
export class CellCounter<L extends string> {
  readonly metric: Counter<L>;
  readonly #cells: Cells<CountCell>;

  constructor(config: { name: string; help: string; labelNames: readonly L[]; registers: Registry[] }) {
    const cells = new Cells<CountCell>(config.labelNames, (labels) => ({ labels, value: 0 }));
    this.#cells = cells;
    this.metric = new Counter<L>({
      ...config,
      collect(this: Counter<L>) {
        this.reset();
        for (const cell of cells.all) this.inc(cell.labels as Partial<Record<L, string>>, cell.value);
      },
    });
  }

  /** Counts one for the label values, in the order of `labelNames`. */
  inc(...values: LabelValue[]): void {
    this.#cells.find(values).value++;
  }
}

interface BucketCell {
  readonly labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last one is beyond the highest bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

type HistogramData<L extends string> = Awaited<ReturnType<Histogram<L>['get']>>;
type HistogramValue = { value: number; labels: Record<string, string | number>; metricName: string };

/**
 * A labelled Prometheus histogram observed into plain cells. It is a prom-client Histogram for the
 * registry (registration, `/metrics`, `get()`), whose values are read from the cells.
 */
export class CellHistogram<L extends string> extends Histogram<L> {
  readonly #cells: Cells<BucketCell>;
  readonly #bounds: readonly number[];
  readonly #name: string;
  readonly #help: string;

  constructor(config: {
    name: string;
    help: string;
    labelNames: readonly L[];
    buckets: readonly number[];
    registers: Registry[];
  }) {
    super({ ...config, buckets: [...config.buckets] });
    this.#name = config.name;
    this.#help = config.help;
    const size = config.buckets.length + 1;
    this.#bounds = [...config.buckets].sort((a, b) => a - b);
    this.#cells = new Cells<BucketCell>(config.labelNames, (labels) => ({
      labels,
      counts: new Array<number>(size).fill(0),
      sum: 0,
      count: 0,
    }));
  }

  /** One observation for the label values, in the order of `labelNames`. */
  observeIn(value: number, ...values: LabelValue[]): void {
    if (!Number.isFinite(value)) return;
    const cell = this.#cells.find(values);
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    cell.counts[i]!++;
    cell.sum += value;
    cell.count++;
  }

  override reset(): void {
    // prom-client's constructor resets too, before this class's fields exist.
    if (#cells in this) this.#cells.clear();
    super.reset();
  }

  override async get(): Promise<HistogramData<L>> {
    // prom-client's type also names `collect`, which the registry does not read from it.
    const data = { name: this.#name, help: this.#help, type: 'histogram', values: this.#values(), aggregator: 'sum' };
    return data as unknown as HistogramData<L>;
  }

  /** What the registry reads for `/metrics` (prom-client's own Histogram has it too). */
  async getForPromString(): Promise<HistogramData<L>> {
    return this.get();
  }

  #values(): HistogramValue[] {
    const values: HistogramValue[] = [];
    const bucket = `${this.#name}_bucket`;
    for (const cell of this.#cells.all) {
      let cumulative = 0;
      this.#bounds.forEach((le, i) => {
        cumulative += cell.counts[i]!;
        values.push({ value: cumulative, labels: { ...cell.labels, le }, metricName: bucket });
      });
      values.push({ value: cell.count, labels: { ...cell.labels, le: '+Inf' }, metricName: bucket });
      values.push({ value: cell.sum, labels: { ...cell.labels }, metricName: `${this.#name}_sum` });
      values.push({ value: cell.count, labels: { ...cell.labels }, metricName: `${this.#name}_count` });
    }
    return values;
  }
}
