export const id = '0005-job-leases';

/**
 * A processing job's lease: the process running it (`lease_owner`) and until when its claim
 * holds (`lease_until`, renewed while it runs). Jobs whose lease ended are taken over.
 */
export const sql = `
ALTER TABLE jobs ADD COLUMN lease_owner TEXT;
ALTER TABLE jobs ADD COLUMN lease_until TEXT;
CREATE INDEX jobs_processing_lease ON jobs(lease_until) WHERE status = 'processing';
`;
