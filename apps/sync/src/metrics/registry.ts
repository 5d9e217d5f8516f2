/**
 * A small Prometheus registry: counters, gauges and histograms with labels, rendered in the
 * text exposition format (version 0.0.4). Small enough to own, so the service carries no
 * metrics dependency; collectors let a gauge be read from the store at scrape time.
 */

type Labels = Readonly<Record<string, string>>;

interface Metric {
  readonly name: string;
  render(): string;
}

const escapeLabel = (value: string): string => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
const renderLabels = (labels: Labels): string => {
  const entries = Object.entries(labels);
  return entries.length === 0 ? "" : `{${entries.map(([key, value]) => `${key}="${escapeLabel(value)}"`).join(",")}}`;
};
const renderNumber = (value: number): string => (Number.isFinite(value) ? String(value) : value > 0 ? "+Inf" : value < 0 ? "-Inf" : "NaN");
const keyOf = (labels: Labels): string => JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));

/** One number per label set: what counters and gauges share. */
abstract class SingleValueMetric implements Metric {
  readonly name: string;
  readonly #help: string;
  readonly #type: "counter" | "gauge";
  protected readonly values = new Map<string, { labels: Labels; value: number }>();

  constructor(name: string, help: string, type: "counter" | "gauge") {
    this.name = name;
    this.#help = help;
    this.#type = type;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.#help}`, `# TYPE ${this.name} ${this.#type}`];
    for (const { labels, value } of this.values.values()) lines.push(`${this.name}${renderLabels(labels)} ${renderNumber(value)}`);
    return lines.join("\n");
  }
}

/** A value per label set that only goes up. */
export class Counter extends SingleValueMetric {
  constructor(name: string, help: string) {
    super(name, help, "counter");
  }

  /** Adds `amount` (default 1) to the series of `labels`. */
  inc(labels: Labels = {}, amount = 1): void {
    if (amount < 0) throw new RangeError(`counter ${this.name} cannot decrease`);
    const key = keyOf(labels);
    const series = this.values.get(key);
    if (series) series.value += amount;
    else this.values.set(key, { labels, value: amount });
  }

  /** The current value of one series (0 when never incremented). */
  get(labels: Labels = {}): number {
    return this.values.get(keyOf(labels))?.value ?? 0;
  }
}

/** A value per label set that goes up and down. */
export class Gauge extends SingleValueMetric {
  constructor(name: string, help: string) {
    super(name, help, "gauge");
  }

  set(value: number, labels: Labels = {}): void {
    this.values.set(keyOf(labels), { labels, value });
  }

  get(labels: Labels = {}): number | undefined {
    return this.values.get(keyOf(labels))?.value;
  }
}

/** Observations counted into cumulative buckets, per label set. */
export class Histogram implements Metric {
  readonly name: string;
  readonly #help: string;
  readonly #buckets: readonly number[];
  readonly #series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();

  constructor(name: string, help: string, buckets: readonly number[]) {
    this.name = name;
    this.#help = help;
    this.#buckets = [...buckets].sort((a, b) => a - b);
  }

  observe(value: number, labels: Labels = {}): void {
    const key = keyOf(labels);
    let series = this.#series.get(key);
    if (!series) this.#series.set(key, (series = { labels, counts: this.#buckets.map(() => 0), sum: 0, count: 0 }));
    const { counts } = series;
    this.#buckets.forEach((bound, index) => {
      if (value <= bound) counts[index] = (counts[index] ?? 0) + 1;
    });
    series.sum += value;
    series.count += 1;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.#help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum, count } of this.#series.values()) {
      this.#buckets.forEach((bound, index) => {
        lines.push(`${this.name}_bucket${renderLabels({ ...labels, le: renderNumber(bound) })} ${counts[index] ?? 0}`);
      });
      lines.push(`${this.name}_bucket${renderLabels({ ...labels, le: "+Inf" })} ${count}`);
      lines.push(`${this.name}_sum${renderLabels(labels)} ${renderNumber(sum)}`);
      lines.push(`${this.name}_count${renderLabels(labels)} ${count}`);
    }
    return lines.join("\n");
  }
}

/** Holds metrics and renders them all; collectors run first, to refresh gauges read at scrape time. */
export class MetricsRegistry {
  readonly #metrics: Metric[] = [];
  readonly #collectors: (() => Promise<void>)[] = [];

  counter(name: string, help: string): Counter {
    return this.#register(new Counter(name, help));
  }

  gauge(name: string, help: string): Gauge {
    return this.#register(new Gauge(name, help));
  }

  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    return this.#register(new Histogram(name, help, buckets));
  }

  /** Runs before each render, such as reading counts from the store. */
  addCollector(collect: () => Promise<void>): void {
    this.#collectors.push(collect);
  }

  /** The whole exposition, ending in a newline. A failing collector leaves its gauges as they were. */
  async render(): Promise<string> {
    await Promise.allSettled(this.#collectors.map((collect) => collect()));
    return `${this.#metrics.map((metric) => metric.render()).join("\n")}\n`;
  }

  #register<M extends Metric>(metric: M): M {
    if (this.#metrics.some((existing) => existing.name === metric.name)) throw new Error(`metric ${metric.name} registered twice`);
    this.#metrics.push(metric);
    return metric;
  }
}

/** The content type of {@link MetricsRegistry.render}'s output. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
