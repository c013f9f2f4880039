// The merchants group: create a merchant, list them, and record and list the money the bank
// received for one (fundings). All four are operator commands: they need ADMIN_TOKEN.
import { adminCall } from './request.ts';
import { printJson, required, usage, wholeNumber, type CliCommand } from './shared.ts';

export const commands: CliCommand[] = [
  {
    name: 'merchants create',
    usage: `\
  merchants create --name NAME [--level 1|2|3] [--currency MWK] [--organisation ORGID]
      Create a merchant (organisation, account, ledger accounts, limits and a first key pair).
      Prints the new credentials once; the secret is not stored anywhere else.
`,
    options: ['name', 'level', 'currency', 'organisation'],
    server: true,
    async run(values, base) {
      const accountName = required(values, 'name').trim();
      const levelNumber = wholeNumber(values, 'level');
      if (levelNumber !== undefined && ![1, 2, 3].includes(levelNumber)) usage(`--level must be 1, 2 or 3, got ${levelNumber}`);
      const body = { accountName, levelNumber, currencyCode: values.currency?.trim(), organisationId: values.organisation?.trim() };
      printJson(await adminCall(base, 'POST', '/admin/v1/merchants', values, { body }));
    },
  },
  {
    name: 'merchants list',
    usage: `\
  merchants list [--limit N] [--after ACCOUNTNUMBER]
      List merchants in account-number order; --after the last number of the previous page.
`,
    options: ['limit', 'after'],
    server: true,
    async run(values, base) {
      printJson(
        await adminCall(base, 'GET', '/admin/v1/merchants', values, {
          query: { limit: wholeNumber(values, 'limit'), afterAccountNumber: wholeNumber(values, 'after') },
        }),
      );
    },
  },
  {
    name: 'merchants fund',
    usage: `\
  merchants fund --merchant ACCOUNTNUMBER --amount AMOUNT --bank-reference REF
                 --received-on YYYY-MM-DD --recorded-by EMAIL
      Record money the bank received for a merchant: credits its disbursement balance from the
      bank settlement account. The only funding in production mode. The bank reference is unique:
      running the same command again prints the first record and credits nothing.
`,
    options: ['merchant', 'amount', 'bank-reference', 'received-on', 'recorded-by'],
    server: true,
    async run(values, base) {
      const merchant = wholeNumber(values, 'merchant') ?? usage('missing --merchant');
      const receivedOn = required(values, 'received-on').trim();
      if (!/^\d{4}-\d{2}-\d{2}$/.test(receivedOn)) usage(`--received-on must be a date such as 2026-11-24, got "${receivedOn.slice(0, 40)}"`);
      // The amount goes as text: the server parses it without floating point.
      const body = { amount: required(values, 'amount').trim(), bankReference: required(values, 'bank-reference').trim(), receivedOn, recordedBy: required(values, 'recorded-by').trim() };
      printJson(await adminCall(base, 'POST', `/admin/v1/merchants/${merchant}/fundings`, values, { body }));
    },
  },
  {
    name: 'merchants fundings',
    usage: `\
  merchants fundings --merchant ACCOUNTNUMBER [--limit N] [--after FUNDINGID]
      List a merchant's fundings, oldest first, with who recorded each.
`,
    options: ['merchant', 'limit', 'after'],
    server: true,
    async run(values, base) {
      const merchant = wholeNumber(values, 'merchant') ?? usage('missing --merchant');
      printJson(
        await adminCall(base, 'GET', `/admin/v1/merchants/${merchant}/fundings`, values, {
          query: { limit: wholeNumber(values, 'limit'), afterFundingId: wholeNumber(values, 'after') },
        }),
      );
    },
  },
];
