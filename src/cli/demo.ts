// The demo group: `demo credentials`, for the sandbox's demo merchant after a restart. Its first
// key pair was printed once by the start that created it and exists nowhere else (only its hash is
// stored), so a later start cannot show it again; this command issues a new pair for the demo
// merchant, straight in the database (as ledger verify reads it: no server, no ADMIN_TOKEN — who
// can open the database is the operator already), and prints it once with the README's export
// line. The old pairs keep working.
import { demoNumbers } from '../banner.ts';
import { insertApiKey, newKeyPair } from '../modules/api-keys/repository.ts';
import { withDatabase } from './database.ts';
import { baseUrl, shown } from './request.ts';
import { FailureError, type CliCommand, type Values } from './shared.ts';

export const commands: CliCommand[] = [
  {
    name: 'demo credentials',
    usage: `\
  demo credentials [--url URL]
      A new key pair for the sandbox's demo merchant (its first one is shown only by the start that
      created it), written to the database directly (DATABASE_URL, else the embedded database in
      DATA_DIR; no ADMIN_TOKEN needed), printed once with the README's export line. --url: the
      server's base URL in that line (default: $ONEKHUSA_URL, else http://localhost:$PORT or :8080).
`,
    options: ['url'],
    server: false,
    run: demoCredentials,
  },
];

async function demoCredentials(values: Values): Promise<void> {
  const base = `${shown(baseUrl(values))}/sandbox/v1`;
  const issued = await withDatabase('onekhusa-demo-credentials', async (client) => {
    const demo = await demoNumbers(client).catch((err: { code?: string; message: string }) => {
      if (err.code === '42P01') throw new FailureError('the database has no tables yet: run npm start once');
      throw err;
    });
    if (!demo) throw new FailureError('this database has no demo merchant (a sandbox on the embedded database creates one on its first start)');
    const pair = newKeyPair();
    await insertApiKey(client, {
      merchantAccountNumber: demo.merchantAccountNumber,
      organisationId: demo.organisationId,
      clientKey: pair.key,
      secret: pair.secret,
      capturedBy: 'cli demo credentials',
      expiryDate: null,
    });
    return { demo, pair };
  });
  const { demo, pair } = issued;
  process.stdout.write(
    [
      'A new key pair for the demo merchant (shown once; the secret is stored only as a hash):',
      `  apiKey     ${pair.key}`,
      `  apiSecret  ${pair.secret}`,
      '',
      "For the README's first integration, paste into your shell:",
      `  export BASE=${base} KEY=${pair.key} SECRET=${pair.secret} ORG=${demo.organisationId} MERCHANT=${demo.merchantAccountNumber}`,
      '',
    ].join('\n'),
  );
}
