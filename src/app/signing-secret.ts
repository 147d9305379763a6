import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The secret behind signed URLs: SIGNING_SECRET when set, otherwise a random secret created
 * once under DATA_DIR (mode 0600) so that links stay valid across restarts. Gateways starting
 * together on one DATA_DIR agree on one secret: each writes a whole candidate file and links it
 * into place, and the link fails for all but the first.
 */
export function loadSigningSecret(configured: string | null, dataDir: string): Buffer {
  if (configured !== null) return Buffer.from(configured, 'utf8');
  const dir = join(dataDir, 'secrets');
  const file = join(dir, 'url-signing.key');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const candidate = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(candidate, randomBytes(48).toString('hex'), { mode: 0o600, flag: 'wx' });
      chmodSync(candidate, 0o600);
      linkSync(candidate, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(candidate, { force: true });
    }
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8');
}
