// `npm run cli -- …`: the operator's command line. It talks to a running server over HTTP (the
// same API anyone could call) and prints the JSON answer to stdout.
//
// Exit codes: 0 done; 1 the server refused (its problem+json goes to stderr) or could not be
// reached; 2 bad usage. Secrets given as options are never echoed back in messages.
import { parseArgs, type ParseArgsConfig } from 'node:util';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  merchants create --name NAME [--level 1|2|3] [--currency MWK] [--organisation ORGID]
      Create a merchant (organisation, account, ledger accounts, limits and a first key pair).
      Prints the new credentials once; the secret is not stored anywhere else.
  merchants list [--limit N] [--after ACCOUNTNUMBER]
      List merchants in account-number order; --after the last number of the previous page.
  token --key KEY --secret SECRET --organisation ORGID --merchant ACCOUNTNUMBER
      Get a 5-minute access token for a key pair.
  help
      Show this text.

Options for every command:
  --url URL              server base URL (default: $ONEKHUSA_URL, else http://localhost:$PORT or :8080)
  --admin-token TOKEN    operator token for the merchants commands (default: $ADMIN_TOKEN)

Exit status: 0 success, 1 refused by the server or server unreachable, 2 bad usage.
`;

const OPTIONS = {
  url: { type: 'string' },
  'admin-token': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  level: { type: 'string' },
  currency: { type: 'string' },
  organisation: { type: 'string' },
  limit: { type: 'string' },
  after: { type: 'string' },
  key: { type: 'string' },
  secret: { type: 'string' },
  merchant: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

type OptionName = keyof typeof OPTIONS;
type Values = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

const COMMON: OptionName[] = ['url', 'admin-token', 'help'];
const COMMAND_OPTIONS: Record<string, OptionName[]> = {
  'merchants create': ['name', 'level', 'currency', 'organisation'],
  'merchants list': ['limit', 'after'],
  token: ['key', 'secret', 'organisation', 'merchant'],
};

const REQUEST_TIMEOUT_MS = 15_000;

class UsageError extends Error {}

/** A refusal or an unreachable server: the message (or problem body) is already worded for stderr. */
class FailureError extends Error {}

function usage(message: string): never {
  throw new UsageError(message);
}

function required(values: Values, name: 'name' | 'key' | 'secret' | 'organisation' | 'merchant'): string {
  const value = values[name];
  if (value === undefined || value.trim() === '') usage(`missing --${name}`);
  return value;
}

function wholeNumber(values: Values, name: 'level' | 'limit' | 'after' | 'merchant'): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value.trim())) usage(`--${name} must be a whole number, got "${value.slice(0, 40)}"`);
  return Number(value.trim());
}

function baseUrl(values: Values): URL {
  const raw = values.url ?? process.env.ONEKHUSA_URL ?? `http://localhost:${process.env.PORT || '8080'}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    usage(`--url is not a URL: "${raw.slice(0, 200)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') usage(`--url must be http:// or https://, got "${url.protocol}"`);
  return url;
}

/** The base URL as shown in messages: without any user:password part. */
function shown(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`;
}

function adminToken(values: Values): string {
  const token = values['admin-token'] ?? process.env.ADMIN_TOKEN;
  if (!token || token.trim() === '') usage('the merchants commands need the operator token: pass --admin-token or set ADMIN_TOKEN');
  return token.trim();
}

async function call(base: URL, method: 'GET' | 'POST', path: string, options: { token?: string; body?: unknown; query?: Record<string, number | undefined> } = {}): Promise<unknown> {
  const url = new URL(base.pathname.replace(/\/$/, '') + path, base);
  for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      redirect: 'error',
    });
    text = await res.text();
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') throw new FailureError(`no answer from ${shown(base)} within ${REQUEST_TIMEOUT_MS / 1000} s — is the server overloaded or stuck?`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    // fetch() refuses some well-known ports (1, 25, 6000…) before connecting at all.
    if (cause?.message === 'bad port') throw new FailureError(`cannot reach ${shown(base)} — fetch() refuses to connect to port ${base.port}; use another port`);
    throw new FailureError(`cannot reach ${shown(base)} — is the server running?${cause?.code ? ` (${cause.code})` : ''}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    // The problem+json body as the server sent it (pretty-printed); anything else with its status.
    throw new FailureError(body !== undefined ? JSON.stringify(body, null, 2) : `HTTP ${res.status} ${res.statusText} from ${method} ${url.pathname}${text ? `\n${text.slice(0, 2000)}` : ''}`);
  }
  if (body === undefined) throw new FailureError(`HTTP ${res.status} from ${method} ${url.pathname} was not JSON${text ? `:\n${text.slice(0, 2000)}` : ''}`);
  return body;
}

async function run(argv: string[]): Promise<void> {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }) as { values: Values; positionals: string[] };
  } catch (err) {
    usage((err as Error).message.split('\n')[0]);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0 || (positionals.length === 1 && positionals[0] === 'help')) {
    process.stdout.write(USAGE);
    return;
  }

  const command = positionals[0] === 'merchants' ? positionals.slice(0, 2).join(' ') : positionals[0];
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed) {
    usage(positionals[0] === 'merchants' ? `unknown merchants command "${positionals[1] ?? ''}" (expected create or list)` : `unknown command "${positionals[0]}"`);
  }
  const extra = positionals.slice(command.split(' ').length);
  if (extra.length > 0) usage(`unexpected argument "${extra[0].slice(0, 40)}" for ${command}`);
  for (const name of Object.keys(values) as OptionName[]) {
    if (!allowed.includes(name) && !COMMON.includes(name)) usage(`--${name} is not an option of "${command}"`);
  }

  const base = baseUrl(values);
  let result: unknown;
  switch (command) {
    case 'merchants create': {
      const accountName = required(values, 'name').trim();
      const levelNumber = wholeNumber(values, 'level');
      if (levelNumber !== undefined && ![1, 2, 3].includes(levelNumber)) usage(`--level must be 1, 2 or 3, got ${levelNumber}`);
      const body = { accountName, levelNumber, currencyCode: values.currency?.trim(), organisationId: values.organisation?.trim() };
      result = await call(base, 'POST', '/admin/v1/merchants', { token: adminToken(values), body });
      break;
    }
    case 'merchants list':
      result = await call(base, 'GET', '/admin/v1/merchants', {
        token: adminToken(values),
        query: { limit: wholeNumber(values, 'limit'), afterAccountNumber: wholeNumber(values, 'after') },
      });
      break;
    case 'token': {
      const body = {
        apiKey: required(values, 'key'),
        apiSecret: required(values, 'secret'),
        organisationId: required(values, 'organisation'),
        merchantAccountNumber: wholeNumber(values, 'merchant') ?? usage('missing --merchant'),
      };
      result = await call(base, 'POST', '/sandbox/v1/account/getAccessToken', { body });
      break;
    }
  }
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}

// exitCode rather than exit(): stdout is flushed before the process ends, even into a pipe.
run(process.argv.slice(2)).then(
  () => {
    process.exitCode = 0;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\nRun "npm run cli -- help" for usage.\n`);
      process.exitCode = 2;
    } else if (err instanceof FailureError) {
      process.stderr.write(err.message + '\n');
      process.exitCode = 1;
    } else {
      process.stderr.write(`unexpected error: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    }
  },
);
