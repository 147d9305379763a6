import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

type CounterChild = ReturnType<Counter<'kind'>['labels']>;

/** Prometheus figures of the streaming endpoint. */
export class WsMetrics {
  readonly sessions: Gauge;
  readonly closes: Counter<'code'>;
  readonly messages: Counter<'kind'>;
  readonly turnLatency: Histogram;
  readonly pieceSeconds: Histogram<'kind'>;
  /** Bound once: counting a message is on the per-message path. */
  readonly audioMessages: CounterChild;
  readonly commandMessages: CounterChild;

  constructor(registry: Registry, activeSessions: () => number) {
    this.sessions = new Gauge({
      name: 'gateway_ws_sessions',
      help: 'Open WebSocket transcription sessions',
      registers: [registry],
      collect() {
        this.set(activeSessions());
      },
    });
    this.closes = new Counter({ name: 'gateway_ws_closes_total', help: 'WebSocket sessions closed, by close code', labelNames: ['code'], registers: [registry] });
    this.messages = new Counter({ name: 'gateway_ws_messages_total', help: 'WebSocket messages received', labelNames: ['kind'], registers: [registry] });
    this.audioMessages = this.messages.labels({ kind: 'audio' });
    this.commandMessages = this.messages.labels({ kind: 'command' });
    this.turnLatency = new Histogram({
      name: 'gateway_ws_turn_latency_seconds',
      help: 'From the arrival of the end of a turn to its turn_detected/transcription message',
      buckets: [0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 5, 10],
      registers: [registry],
    });
    this.pieceSeconds = new Histogram({
      name: 'gateway_ws_piece_seconds',
      help: 'Queue + recognition time of a streaming piece, by kind',
      labelNames: ['kind'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
      registers: [registry],
    });
  }
}
