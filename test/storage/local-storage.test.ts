import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { LocalFileStorage } from '../../src/platform/files/local-file-storage.js';
import { storageContract } from './storage-contract.js';

const root = mkdtempSync(join(tmpdir(), 'local-storage-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

storageContract('local files', () => new LocalFileStorage(root));
