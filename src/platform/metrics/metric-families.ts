import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * One-line declarations of the metric families a module registers on one registry, so each
 * module states only what differs (name, help, labels, buckets). prom-client refuses a second
 * family of the same name on a registry: create a module's families once per registry.
 */
export interface MetricFamilies {
  counter<Label extends string>(name: string, help: string, labelNames: readonly Label[]): Counter<Label>;
  histogram<Label extends string>(name: string, help: string, labelNames: readonly Label[], buckets: readonly number[]): Histogram<Label>;
}

export function metricFamilies(registry: Registry): MetricFamilies {
  const registers = [registry];
  return {
    counter: (name, help, labelNames) => new Counter({ name, help, labelNames, registers }),
    histogram: (name, help, labelNames, buckets) => new Histogram({ name, help, labelNames, buckets: [...buckets], registers }),
  };
}
