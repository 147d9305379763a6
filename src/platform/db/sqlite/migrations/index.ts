import * as m0001 from './0001-accounts-keys-usage.js';
import * as m0002 from './0002-jobs.js';
import * as m0003 from './0003-media-assets.js';
import * as m0004 from './0004-webhooks.js';
import * as m0005 from './0005-job-leases.js';
import * as m0006 from './0006-translation-jobs.js';
import * as m0007 from './0007-idempotency-keys.js';

import type { Migration } from '../../migration.js';

export type { Migration };

/** Applied in this order, each once, each in its own transaction. Never edit a shipped migration. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [m0001, m0002, m0003, m0004, m0005, m0006, m0007];
