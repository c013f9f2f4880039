// `npm run cli -- …`: the operator's command line. It talks to a running server over HTTP (the
// same API anyone could call) and prints the JSON answer to stdout; `ledger verify` reads the
// database instead, and `listen` runs until stopped (see their files).
//
// Exit codes: 0 done; 1 the server refused (its problem+json goes to stderr) or could not be
// reached; 2 bad usage. Secrets given as options are never echoed back in messages.
//
// This file only reads the command line, prints the help and dispatches: each command group lives
// in a file of its own, which exports its commands (name, help lines, options, run), so a new
// group is a new file and its import here.
import { parseArgs } from 'node:util';
import { commands as db } from './db.ts';
import { commands as demo } from './demo.ts';
import { commands as emails } from './emails.ts';
import { commands as keys } from './keys.ts';
import { commands as ledger } from './ledger.ts';
import { commands as listen } from './listen.ts';
import { commands as merchants } from './merchants.ts';
import { commands as rails } from './rails.ts';
import { baseUrl } from './request.ts';
import { FailureError, OPTIONS, usage, UsageError, type CliCommand, type OptionName, type Values } from './shared.ts';
import { commands as token } from './token.ts';

/** In the order the help lists them. */
const COMMANDS: readonly CliCommand[] = [...merchants, ...emails, ...keys, ...demo, ...rails, ...token, ...listen, ...ledger, ...db];

/** The first words of the two-word commands: merchants, emails, keys, demo, rails, ledger, db. */
const GROUPS = new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]));

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
${COMMANDS.map((c) => c.usage).join('')}  help
      Show this text.

Options for every command but ledger verify, demo credentials and db distribute:
  --url URL              server base URL (default: $ONEKHUSA_URL, else http://localhost:$PORT or :8080)
  --admin-token TOKEN    operator token for the merchants, keys, emails and rails commands (default: $ADMIN_TOKEN);
                         a server started without ADMIN_TOKEN has no operator API, and says so

Exit status: 0 success, 1 refused by the server or server unreachable (ledger verify: a check
failed or the database unreachable), 2 bad usage.
`;

/** A group's second words as a message lists them: "create, list, fund or fundings". */
function expectedIn(group: string): string {
  const words = COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map((c) => c.name.slice(group.length + 1));
  return words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
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

  const group = GROUPS.has(positionals[0]) ? positionals[0] : undefined;
  const name = group ? positionals.slice(0, 2).join(' ') : positionals[0];
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    if (group) usage(`unknown ${group} command "${(positionals[1] ?? '').slice(0, 40)}" (expected ${expectedIn(group)})`);
    usage(`unknown command "${positionals[0]}"`);
  }
  const extra = positionals.slice(name.split(' ').length);
  if (extra.length > 0) usage(`unexpected argument "${extra[0].slice(0, 40)}" for ${name}`);
  // ledger verify talks to the database, not to a server: --url and --admin-token mean nothing there.
  const common: OptionName[] = command.server ? ['url', 'admin-token', 'help'] : ['help'];
  for (const option of Object.keys(values) as OptionName[]) {
    if (!command.options.includes(option) && !common.includes(option)) usage(`--${option} is not an option of "${name}"`);
  }
  // The server's URL is resolved (and a bad --url reported) before the command checks its own options.
  if (command.server) await command.run(values, baseUrl(values));
  else await command.run(values);
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
