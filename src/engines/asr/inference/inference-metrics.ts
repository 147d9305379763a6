import type { Registry } from 'prom-client';
import { metricFamilies } from '../../../platform/metrics/metric-families.js';
import { deferredGauge } from '../../../platform/metrics/shared-metrics.js';
import type { InferenceObserver } from './inference-pool.js';

/**
 * Prometheus metrics for the inference pool, registered on `registry`:
 *  - `<prefix>batch_size` histogram (label model)
 *  - `<prefix>queue_wait_seconds` histogram (labels model, priority): run() to batch sent
 *    (live streams' steps: priority `partial`, step queued to step batch sent)
 *  - `<prefix>run_seconds` histogram (labels model, device): onnxruntime run time of a batch
 *    (a step batch's: its streaming graph runs)
 *  - `<prefix>requests_total` counter (labels model, outcome: ok | error | busy | closed)
 *  - `<prefix>queue_depth` gauge: requests waiting for a worker
 *  - `<prefix>model_loads_total` counter (labels model, device)
 * Create once per registry (prom-client refuses duplicate names).
 */
export function createInferenceMetrics(registry: Registry, prefix = 'inference_'): InferenceObserver {
  const family = metricFamilies(registry);
  const batchSize = family.histogram(`${prefix}batch_size`, 'Requests per inference batch', ['model'], [1, 2, 3, 4, 6, 8, 12, 16, 24, 32]);
  const queueWait = family.histogram(
    `${prefix}queue_wait_seconds`,
    'Time a request waited in the inference queue before its batch was sent to a worker',
    ['model', 'priority'],
    [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const runTime = family.histogram(
    `${prefix}run_seconds`,
    'onnxruntime run time of one inference batch',
    ['model', 'device'],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const requests = family.counter(`${prefix}requests_total`, 'Inference requests by outcome', ['model', 'outcome']);
  const loads = family.counter(`${prefix}model_loads_total`, 'Model sessions opened in inference workers', ['model', 'device']);
  const queueDepth = deferredGauge(registry, `${prefix}queue_depth`, 'Inference requests waiting for a worker');
  return {
    onBatch(event) {
      if (event.ok) {
        batchSize.observe({ model: event.model }, event.size);
        runTime.observe({ model: event.model, device: event.provider }, event.runMs / 1000);
      }
      for (const wait of event.queueWaitMs) queueWait.observe({ model: event.model, priority: event.priority }, wait / 1000);
      requests.inc({ model: event.model, outcome: event.ok ? 'ok' : 'error' }, event.size);
    },
    onRejected(event) {
      requests.inc({ model: event.model, outcome: event.reason });
    },
    onLoad(event) {
      loads.inc({ model: event.model, device: event.provider });
    },
    queueDepth,
  };
}
