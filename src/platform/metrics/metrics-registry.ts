import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * prom-client's default gauges that break Prometheus naming (a gauge may not end in `_total`;
 * `promtool check metrics` rejects them). Their per-type siblings without the suffix stay
 * (`sum(nodejs_active_handles)` is the same figure).
 */
const MISNAMED_DEFAULT_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/**
 * One Prometheus registry per gateway instance (not prom-client's global one), so that
 * several gateways in one test process do not share counters.
 */
export function createMetricsRegistry(withDefaultMetrics: boolean): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'speech-gateway' });
  if (withDefaultMetrics) {
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
    for (const name of MISNAMED_DEFAULT_GAUGES) registry.removeSingleMetric(name);
  }
  return registry;
}
