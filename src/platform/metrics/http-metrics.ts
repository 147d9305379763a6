import type { Counter, Histogram, Registry } from 'prom-client';
import { metricFamilies } from './metric-families.js';
import { isRejection, rejectionMetrics, type RejectionMetrics } from './shared-metrics.js';

/** Request counts and latency per route template (never per raw URL: label cardinality stays fixed). */
export class HttpMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route'>;
  private readonly refused: RejectionMetrics;

  constructor(registry: Registry) {
    this.refused = rejectionMetrics(registry);
    const family = metricFamilies(registry);
    this.requests = family.counter('gateway_http_requests_total', 'HTTP requests by route template and status', ['method', 'route', 'status']);
    this.duration = family.histogram(
      'gateway_http_request_duration_seconds',
      'HTTP request latency from first byte to response',
      ['method', 'route'],
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    );
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.duration.observe({ method, route }, seconds);
  }

  /** An error answer: counted as a rejection when it is a limit, quota or overload refusal. */
  error(status: number, code: string): void {
    if (isRejection(status, code)) this.refused.rejections.inc({ surface: 'rest', reason: code });
  }
}
