// The keys group: a new key pair for a merchant whose credentials were lost (the demo merchant's
// included). An operator command: it needs ADMIN_TOKEN.
import { adminCall } from './request.ts';
import { printJson, usage, wholeNumber, type CliCommand } from './shared.ts';

export const commands: CliCommand[] = [
  {
    name: 'keys create',
    usage: `\
  keys create --merchant ACCOUNTNUMBER
      Issue a new key pair for a merchant (lost credentials, the demo merchant's included).
      Prints organisationId, merchantAccountNumber, clientId, apiKey and apiSecret once; the
      secret is stored only as a hash. The merchant's other key pairs keep working.
`,
    options: ['merchant'],
    server: true,
    async run(values, base) {
      const merchant = wholeNumber(values, 'merchant') ?? usage('missing --merchant');
      printJson(await adminCall(base, 'POST', `/admin/v1/merchants/${merchant}/keys`, values, { body: { capturedBy: 'cli.keys@onekhusa.local' } }));
    },
  },
];
