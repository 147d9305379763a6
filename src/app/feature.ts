import type { DocumentSection } from '../platform/http/llms-text.js';
import type { RouteDefinition } from '../platform/http/route-types.js';
import type { Uws } from '../platform/http/uws.js';

/**
 * One part of the service the gateway mounts from its list. Lifetimes: every feature is
 * built and mounted before any starts; they start in list order once all routes are in place
 * (before the gateway listens). Shutdown has two phases: once the listener has stopped, every
 * feature's `drain` runs at once, beside the requests still in flight, and ends its work in
 * flight by the deadline; then, requests answered, they close in reverse list order, before the
 * backends close.
 */
export interface Feature {
  /** Names the feature in shutdown logs. */
  readonly name: string;
  /** Routes, in the order /openapi.json and the root listing show them. */
  readonly routes?: readonly RouteDefinition[];
  /** Guide sections for /llms.txt and /llms-full.txt. */
  readonly sections?: readonly DocumentSection[];
  /** Handlers on the raw app that must come before the router's catch-all ones (WebSocket upgrades). */
  mount?(app: Uws.TemplatedApp): void;
  start?(): Promise<void> | void;
  /**
   * Shutdown's first phase: takes no new work and ends the work in flight by `deadline` (epoch
   * ms), answering the requests that wait on it. Requests may still arrive while it runs.
   */
  drain?(deadline: number): Promise<void>;
  close?(): Promise<void>;
}
