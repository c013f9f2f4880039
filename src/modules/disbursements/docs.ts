// What the API reference says about payouts in the sandbox: the example payouts, the outcomes
// table and the description's paragraph, generated from the table the payout worker itself uses
// (sandbox.ts), never copied by hand.
import { EXAMPLE } from '../../http/docs.ts';
import { MAGIC_SUFFIXES, SUCCESS, TEST_BANKS, TEST_WALLETS } from './sandbox.ts';

/** The account numbers of the example set's bank and wallet (http/docs.ts EXAMPLE): test accounts that succeed. */
export const EXAMPLE_ACCOUNTS = { bank: TEST_BANKS[1], wallet: TEST_WALLETS[0] } as const;

/** Two payouts that succeed in the sandbox: a test bank account and a test wallet. */
export const EXAMPLE_PAYOUTS = [
  {
    beneficiaryName: EXAMPLE.bank.accountName,
    connectorId: EXAMPLE.bank.connectorId,
    beneficiaryAccountNumber: EXAMPLE_ACCOUNTS.bank,
    transactionDescription: 'March salary',
    transactionAmount: '150000.00',
    sourceReferenceNumber: 'PAYROLL-0325-001',
  },
  {
    beneficiaryName: EXAMPLE.wallet.accountName,
    connectorId: EXAMPLE.wallet.connectorId,
    beneficiaryAccountNumber: EXAMPLE_ACCOUNTS.wallet,
    transactionDescription: 'March salary',
    transactionAmount: '85000.00',
    sourceReferenceNumber: 'PAYROLL-0325-002',
  },
];

const range = (list: readonly string[]) => `${list[0]}–${list[list.length - 1]}`;

/** The sandbox's payout outcomes, from the table the payout worker itself uses. */
export const SANDBOX_PAYOUTS_TEXT = [
  '**Sandbox outcomes.** Payouts to the documented test accounts succeed ' +
    `(\`${SUCCESS.responseCode}\` ${SUCCESS.responseMessage}): banks ${range(TEST_BANKS)} ` +
    `(e.g. connector 212188 National Bank of Malawi, 221500 FDH Bank, 221300 Standard Bank), wallets ${TEST_WALLETS.join(', ')} ` +
    '(e.g. connector 112400 Airtel Money). Any other well-formed account succeeds too (wallets: a 12-digit MSISDN starting 265; ' +
    'banks: 10–16 digits), except an account ending in a magic suffix:',
  '',
  '| account ends in | what happens | responseCode | responseMessage |',
  '|---|---|---|---|',
  ...MAGIC_SUFFIXES.map((m) => `| \`${m.suffix}\` | ${m.behaviour} | \`${m.responseCode}\` | ${m.responseMessage} |`),
].join('\n');

/** The paragraph of the document's description about the sandbox (http/docs.ts docsIntro). */
export const SANDBOX_INTRO =
  `**Sandbox.** Payouts to the test accounts (banks ${range(TEST_BANKS)}, wallets ${TEST_WALLETS[0]} …) succeed; accounts ending in a ` +
  'magic suffix fail, time out or are reversed: see the payout operations. Webhook operations list the event codes.';
