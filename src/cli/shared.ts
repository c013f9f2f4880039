// What every command group of the CLI shares: the one option table (parseArgs reads the whole
// command line at once, so every option of every command is declared here and each command lists
// the names it takes), the shape a group exports its commands in, the two errors that decide the
// exit status, and the checks of option values. The HTTP side is in request.ts.
import type { ParseArgsConfig } from 'node:util';

export const OPTIONS = {
  url: { type: 'string' },
  'admin-token': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  level: { type: 'string' },
  currency: { type: 'string' },
  organisation: { type: 'string' },
  limit: { type: 'string' },
  after: { type: 'string' },
  page: { type: 'string' },
  status: { type: 'string' },
  recipient: { type: 'string' },
  key: { type: 'string' },
  secret: { type: 'string' },
  merchant: { type: 'string' },
  amount: { type: 'string' },
  'bank-reference': { type: 'string' },
  'received-on': { type: 'string' },
  'recorded-by': { type: 'string' },
  events: { type: 'string' },
  'forward-to': { type: 'string' },
  port: { type: 'string' },
  'lease-seconds': { type: 'string' },
  reference: { type: 'string' },
  collection: { type: 'string' },
  day: { type: 'string' },
  'wait-seconds': { type: 'string' },
  all: { type: 'boolean' },
  id: { type: 'string' },
  action: { type: 'string' },
  reason: { type: 'string' },
  by: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export type OptionName = keyof typeof OPTIONS;
export type Values = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

/**
 * One command, as a group file exports it and main.ts dispatches to it. A command that talks to a
 * server (server: true) also takes --url and --admin-token, and gets the base URL, resolved (and
 * checked) before its own options are; ledger verify reads the database and takes only --help.
 */
export type CliCommand = {
  /** The words that name it: 'merchants create', 'token'. A two-word name makes its first word a group. */
  name: string;
  /** Its lines of the help text, each ending in a newline. */
  usage: string;
  /** The options it takes besides the common ones. */
  options: readonly OptionName[];
} & ({ server: true; run(values: Values, base: URL): Promise<void> } | { server: false; run(values: Values): Promise<void> });

/** Bad usage: exit status 2, the message followed by where to find the usage. */
export class UsageError extends Error {}

/** A refusal or an unreachable server: the message (or problem body) is already worded for stderr. */
export class FailureError extends Error {}

export function usage(message: string): never {
  throw new UsageError(message);
}

export function required(values: Values, name: 'name' | 'key' | 'secret' | 'organisation' | 'merchant' | 'amount' | 'bank-reference' | 'received-on' | 'recorded-by'): string {
  const value = values[name];
  if (value === undefined || value.trim() === '') usage(`missing --${name}`);
  return value;
}

export function wholeNumber(values: Values, name: 'level' | 'limit' | 'after' | 'merchant' | 'port' | 'page' | 'lease-seconds' | 'wait-seconds' | 'id'): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value.trim())) usage(`--${name} must be a whole number, got "${value.slice(0, 40)}"`);
  return Number(value.trim());
}

/** A server's answer, as every command but listen prints it: pretty JSON on stdout. */
export function printJson(result: unknown): void {
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}
