import { describe, expect, it } from 'vitest';
import { accountFileKey, parseDestinationUri, parseSourceUri } from './translation-locations.js';

describe('translation source and destination URIs', () => {
  it('reads https:// URLs and svc:// URIs as sources, and refuses the rest with a reason', () => {
    expect(parseSourceUri('https://files.example.com/a b.txt?sig=1')).toEqual({ kind: 'https', url: 'https://files.example.com/a%20b.txt?sig=1' });
    expect(parseSourceUri('svc://media/file_abc')).toEqual({ kind: 'media', uri: 'svc://media/file_abc' });
    expect(parseSourceUri('svc://runs//one/a.am.txt')).toEqual({ kind: 'svc', path: 'runs/one/a.am.txt' });
    expect(parseSourceUri('http://files.example.com/a.txt')).toMatch(/https/);
    expect(parseSourceUri('ftp://files.example.com/a.txt')).toMatch(/https/);
    expect(parseSourceUri('https://u:p@files.example.com/a.txt')).toMatch(/credentials/);
    expect(parseSourceUri('svc://runs/../secrets')).toMatch(/path segments/);
    expect(parseSourceUri('svc://')).toMatch(/path segments/);
    expect(parseSourceUri('nonsense')).toMatch(/not a valid URL/);
  });

  it('reads svc://, s3:// (the gateway bucket only) and https:// prefixes as destinations', () => {
    expect(parseDestinationUri('svc://out/run-1/', null)).toEqual({ kind: 'storage', path: 'out/run-1' });
    expect(parseDestinationUri('s3://gw-bucket/out/run-1', 'gw-bucket')).toEqual({ kind: 'storage', path: 'out/run-1' });
    expect(parseDestinationUri('s3://gw-bucket/out', null)).toMatch(/FILES_BACKEND=s3/);
    expect(parseDestinationUri('s3://other/out', 'gw-bucket')).toMatch(/gw-bucket/);
    expect(parseDestinationUri('s3://gw-bucket', 'gw-bucket')).toMatch(/prefix/);
    expect(parseDestinationUri('https://dest.example.com/bucket/run', null)).toEqual({ kind: 'https', base: 'https://dest.example.com/bucket/run/' });
    expect(parseDestinationUri('https://dest.example.com/out/?x=1', null)).toMatch(/no query/);
    expect(parseDestinationUri('http://dest.example.com/out/', null)).toMatch(/https/);
    expect(accountFileKey('acct_1', 'out/a.am.txt')).toBe('accounts/acct_1/files/out/a.am.txt');
  });
});
