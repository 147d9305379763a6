import { parseArgs } from 'node:util';
import { keyView, KeyService } from '../../platform/auth/key-service.js';
import { ConfigError, loadConfig } from '../../platform/config/config.js';
import { isApiError } from '../../platform/errors/api-error.js';
import { openStore } from '../../platform/db/open-store.js';

const USAGE = `Usage: npm run keys -- <command> [options]

Commands:
  create --account NAME [--name TEXT] [--scopes read,write,admin] [--expires 30d|ISO-DATE]
         [--ip CIDR]... [--origin ORIGIN]... [--rate-limit N] [--rate-limit-hour N]
         [--rate-limit-day N] [--concurrent-jobs N] [--daily-minutes N] [--ws-connections N]
         Creates a key and prints it once, with its record, as JSON.
  list   [--account NAME] [--all]      Lists keys (--all includes revoked ones).
  revoke KEY_ID|PREFIX                  Revokes a key.

The store is the one the gateway uses: STORE_BACKEND, DATA_DIR (default ./data) for SQLite,
DATABASE_URL for PostgreSQL.`;

function fail(message: string, exitCode = 1): never {
  process.stderr.write(`${JSON.stringify({ error: { message } }, null, 2)}\n`);
  process.exit(exitCode);
}

function positiveNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) fail(`--${name} must be a positive number, got "${value}"`, 2);
  return n;
}

const list = (values: string[] | undefined): string[] =>
  (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === undefined || command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    process.exit(command === undefined ? 2 : 0);
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, 2);
    throw error;
  }
  let store;
  try {
    store = await openStore(config);
  } catch (error) {
    fail(
      `cannot open the ${config.store.backend === 'postgres' ? 'PostgreSQL database (DATABASE_URL)' : 'SQLite database under DATA_DIR'}: ${(error as Error).message}`,
    );
  }
  const keys = new KeyService(store);
  const accountName = async (id: string) => (await store.accounts.get(id))?.name;
  try {
    switch (command) {
      case 'create': {
        const { values } = parseArgs({
          args: rest,
          options: {
            account: { type: 'string' },
            name: { type: 'string' },
            scopes: { type: 'string' },
            expires: { type: 'string' },
            ip: { type: 'string', multiple: true },
            origin: { type: 'string', multiple: true },
            'rate-limit': { type: 'string' },
            'rate-limit-hour': { type: 'string' },
            'rate-limit-day': { type: 'string' },
            'concurrent-jobs': { type: 'string' },
            'daily-minutes': { type: 'string' },
            'ws-connections': { type: 'string' },
          },
          strict: true,
        });
        if (values.account === undefined) fail('--account is required', 2);
        const limits = {
          requestsPerMinute: positiveNumber('rate-limit', values['rate-limit']),
          requestsPerHour: positiveNumber('rate-limit-hour', values['rate-limit-hour']),
          requestsPerDay: positiveNumber('rate-limit-day', values['rate-limit-day']),
          concurrentJobs: positiveNumber('concurrent-jobs', values['concurrent-jobs']),
          dailyAudioMinutes: positiveNumber('daily-minutes', values['daily-minutes']),
          wsConnections: positiveNumber('ws-connections', values['ws-connections']),
        };
        const created = await keys.create({
          account: values.account,
          name: values.name ?? null,
          ...(values.scopes !== undefined ? { scopes: list([values.scopes]) } : {}),
          expires: values.expires ?? null,
          ipAllowlist: list(values.ip),
          originAllowlist: list(values.origin),
          limits: Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)),
        });
        process.stdout.write(`${JSON.stringify({ ...keyView(created.record, created.account.name), key: created.key }, null, 2)}\n`);
        break;
      }
      case 'list': {
        const { values } = parseArgs({ args: rest, options: { account: { type: 'string' }, all: { type: 'boolean' } }, strict: true });
        const records = await keys.list({ ...(values.account !== undefined ? { account: values.account } : {}), includeRevoked: values.all ?? false });
        const data = await Promise.all(records.map(async (r) => keyView(r, await accountName(r.accountId))));
        process.stdout.write(`${JSON.stringify({ object: 'list', data }, null, 2)}\n`);
        break;
      }
      case 'revoke': {
        const { positionals } = parseArgs({ args: rest, options: {}, allowPositionals: true, strict: true });
        if (positionals.length !== 1) fail('revoke takes one key id or prefix', 2);
        const record = await keys.revoke(positionals[0]!);
        process.stdout.write(`${JSON.stringify(keyView(record, await accountName(record.accountId)), null, 2)}\n`);
        break;
      }
      default:
        fail(`unknown command "${command}"\n\n${USAGE}`, 2);
    }
  } catch (error) {
    if (isApiError(error)) fail(error.message);
    if (error instanceof TypeError && 'code' in error && String((error as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      fail(`${error.message}\n\n${USAGE}`, 2);
    }
    throw error;
  } finally {
    await store.close();
  }
}

void main();
