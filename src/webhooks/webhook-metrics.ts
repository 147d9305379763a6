import type { Counter, Histogram, Registry } from 'prom-client';
import { metricFamilies } from '../platform/metrics/metric-families.js';

/** How one POST ended: a 2xx, another status, or no answer (connection, TLS, guard, timeout). */
export type AttemptResult = 'success' | 'http_error' | 'network_error';
/** What the attempt did to its delivery: done, to be retried, or given up. */
export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed';

const EVENTS = new Set(['job.completed', 'job.failed', 'job.cancelled', 'job.progress', 'webhook.test']);

/**
 * Prometheus figures of webhook deliveries:
 *  - gateway_webhook_attempts_total{event, result, outcome}
 *  - gateway_webhook_attempt_duration_seconds{result}: POST to answer (or give-up)
 */
export class WebhookMetrics {
  private readonly attempts: Counter<'event' | 'result' | 'outcome'>;
  private readonly duration: Histogram<'result'>;

  constructor(registry: Registry) {
    const family = metricFamilies(registry);
    this.attempts = family.counter('gateway_webhook_attempts_total', 'Webhook delivery attempts by event, result of the POST and outcome of the delivery', [
      'event',
      'result',
      'outcome',
    ]);
    this.duration = family.histogram(
      'gateway_webhook_attempt_duration_seconds',
      'Latency of one webhook delivery attempt',
      ['result'],
      [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    );
  }

  attempt(event: string, status: number | null, outcome: DeliveryOutcome, durationMs: number): void {
    const result: AttemptResult = status === null ? 'network_error' : status >= 200 && status < 300 ? 'success' : 'http_error';
    this.attempts.inc({ event: EVENTS.has(event) ? event : 'other', result, outcome });
    this.duration.observe({ result }, durationMs / 1000);
  }
}
