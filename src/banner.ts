// What every start prints once it listens: where the API and its docs are (the address actually
// bound, never a configured guess), whether the operator API is on, the demo merchant's numbers and
// how to get a new key pair. The demo merchant's secret and its administrator's console password
// only on the start that creates them: they exist nowhere else (only their hashes are stored), so
// later starts say how to get a new pair.
import type net from 'node:net';
import type { Config } from './config.ts';
import type { Queryable } from './db/pool.ts';
import type { MerchantCredentials } from './modules/merchants/service.ts';

/** What the CLI uses when neither --url nor ONEKHUSA_URL nor PORT says otherwise (src/cli/request.ts). */
const CLI_DEFAULT_URL = 'http://localhost:8080';

export interface DemoNumbers {
  organisationId: string;
  merchantAccountNumber: number;
  paymentAccountNumber: string;
}

/**
 * The URL clients reach a bound address at: localhost for the wildcard addresses (0.0.0.0, ::),
 * brackets around other IPv6 addresses.
 */
export function baseUrlOf(address: net.AddressInfo | string | null): string {
  if (address === null || typeof address === 'string') throw new Error(`the server is not listening on a TCP port (${String(address)})`);
  const wildcard = address.address === '0.0.0.0' || address.address === '::' || address.address === '::ffff:0.0.0.0';
  const host = wildcard ? 'localhost' : address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** The demo merchant's numbers, when this database has one (a sandbox on the embedded database). */
export async function demoNumbers(db: Queryable): Promise<DemoNumbers | undefined> {
  const { rows } = await db.query<{ organisation_id: string; merchant_account_number: number; payment_account_number: string }>(
    `select m.organisation_id, m.merchant_account_number, m.payment_account_number
       from settings s join merchants m on m.merchant_account_number::text = s.value
      where s.key = 'demo_merchant'`,
  );
  const row = rows[0];
  return row && { organisationId: row.organisation_id, merchantAccountNumber: row.merchant_account_number, paymentAccountNumber: row.payment_account_number };
}

/** The demo merchant's new credentials: its key pair and, when made with it, its administrator's console sign-in. */
export type CreatedDemo = MerchantCredentials & { consoleEmail?: string; consolePassword?: string };

export interface BannerInput {
  config: Pick<Config, 'mode' | 'adminToken' | 'databaseUrl' | 'dataDir'>;
  /** Where the server listens, as clients reach it (baseUrlOf). */
  baseUrl: string;
  /** The demo merchant's numbers (every start that has one). */
  demo: DemoNumbers | undefined;
  /** Its new credentials, on the start that created it. */
  created: CreatedDemo | undefined;
}

export function bannerText({ config, baseUrl, demo, created }: BannerInput): string {
  const operatorOn = config.adminToken !== undefined;
  const apiBase = config.mode === 'production' ? `${baseUrl}/live/v1 (and ${baseUrl}/sandbox/v1)` : `${baseUrl}/sandbox/v1`;
  const cliUrl = baseUrl === CLI_DEFAULT_URL ? '' : ` --url ${baseUrl}`;
  const keysCommand = (merchant: string) => `npm run cli -- keys create --merchant ${merchant}${cliUrl}`;
  const newPair = (merchant: string) =>
    operatorOn
      ? `New key pair (a lost secret): ADMIN_TOKEN=<the server's> ${keysCommand(merchant)}`
      : `New key pair (a lost secret): restart with ADMIN_TOKEN set, then ADMIN_TOKEN=<it> ${keysCommand(merchant)}`;
  const lines = [
    '',
    `OneKhusa ${config.mode} API is listening`,
    `  API base URL    ${apiBase}`,
    `  API reference   ${baseUrl}/docs`,
    `  Console         ${baseUrl}/console`,
    `  Operator API    ${operatorOn ? 'on (ADMIN_TOKEN is set): npm run cli -- help' : 'off (ADMIN_TOKEN is not set: the merchants, keys and emails commands are refused)'}`,
    `  Database        ${config.databaseUrl ? 'DATABASE_URL' : `embedded PostgreSQL, data in ${config.dataDir}`}`,
  ];
  const merchant = created ?? demo;
  if (created) {
    const base = `${baseUrl}/sandbox/v1`;
    lines.push(
      '',
      'Demo merchant created (shown once; the secret is stored only as a hash):',
      `  organisationId        ${created.organisationId}`,
      `  merchantAccountNumber ${created.merchantAccountNumber}`,
      `  paymentAccountNumber  ${created.paymentAccountNumber}`,
      `  apiKey                ${created.apiKey}`,
      `  apiSecret             ${created.apiSecret}`,
      ...(created.consoleEmail && created.consolePassword
        ? [`  consoleEmail          ${created.consoleEmail}`, `  consolePassword       ${created.consolePassword}   (sign in at ${baseUrl}/console)`]
        : []),
      '',
      "For the README's first integration, paste into your shell:",
      `  export BASE=${base} KEY=${created.apiKey} SECRET=${created.apiSecret} ORG=${created.organisationId} MERCHANT=${created.merchantAccountNumber}`,
    );
  } else if (demo) {
    lines.push(
      '',
      'Demo merchant (its key pair was shown on the first start only):',
      `  organisationId        ${demo.organisationId}`,
      `  merchantAccountNumber ${demo.merchantAccountNumber}`,
      `  paymentAccountNumber  ${demo.paymentAccountNumber}`,
      '',
      "For the README's first integration, a new key pair and its export line (the first start's pair still works):",
      `  npm run cli -- demo credentials${cliUrl}`,
    );
  }
  lines.push('', newPair(merchant ? String(merchant.merchantAccountNumber) : 'ACCOUNTNUMBER'), '');
  return lines.join('\n') + '\n';
}

/** Prints the banner for a server listening at `address` (its server.address()). */
export async function printBanner(
  deps: { config: BannerInput['config']; db: Queryable },
  created: CreatedDemo | undefined,
  address: net.AddressInfo | string | null,
  out: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  // The demo merchant exists only in a sandbox; a production start on an old sandbox database does not show it.
  const demo = deps.config.mode === 'sandbox' ? await demoNumbers(deps.db).catch(() => undefined) : undefined;
  out.write(bannerText({ config: deps.config, baseUrl: baseUrlOf(address), demo, created }));
}
