import type { Migration } from '../../migration.js';
import * as m0001 from './0001-initial.js';
import * as m0002 from './0002-translation-jobs.js';
import * as m0003 from './0003-idempotency-keys.js';

/** Applied in this order, each once, under an advisory lock. Never edit a shipped migration. */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [m0001, m0002, m0003];
