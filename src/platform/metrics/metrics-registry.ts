import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * One Prometheus registry per gateway instance (not prom-client's global one), so that
 * several gateways in one test process do not share counters.
 */
export function createMetricsRegistry(withDefaultMetrics: boolean): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'speech-gateway' });
  if (withDefaultMetrics) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  return registry;
}
