import { EventEmitter } from 'node:events';
import type { JobRecord } from '../platform/db/job-records.js';

export interface JobEventMap {
  /** A processing job advanced (throttled: at most a few per second per job). */
  progress: [job: JobRecord];
  /** A job reached completed, failed or cancelled. */
  finished: [job: JobRecord];
}

/** In-process notifications of job changes; webhooks, batch parents and sync waiters listen. */
export class JobEvents extends EventEmitter<JobEventMap> {
  constructor() {
    super();
    this.setMaxListeners(0);
  }
}
