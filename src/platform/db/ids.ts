import { randomBytes } from 'node:crypto';

/** `<prefix>_` and 24 random hex digits. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
