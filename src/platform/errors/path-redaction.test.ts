import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactServerPaths, registerServerPath } from './path-redaction.js';

describe('redactServerPaths', () => {
  it('replaces paths under the temp folder, the working directory and registered folders', () => {
    const data = join(tmpdir(), 'gateway-x', 'files', 'accounts', 'acct_1', 'jobs', 'tr_1', 'audio');
    expect(redactServerPaths(`${data}: Invalid data found`)).toBe('<server file>: Invalid data found');
    expect(redactServerPaths(`open '${join(process.cwd(), 'models', 'a.onnx')}' failed`)).toBe("open '<server file>' failed");
    registerServerPath('/srv/speech-data');
    expect(redactServerPaths('EACCES: /srv/speech-data/files/x.partial')).toBe('EACCES: <server file>');
  });

  it('leaves URLs and API paths alone', () => {
    const text = 'No endpoint GET /v1/nowhere; see https://example.com/a/b.wav and svc://media/file_1.';
    expect(redactServerPaths(text)).toBe(text);
  });
});
