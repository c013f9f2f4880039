// The sandbox connector (product.md §7): every well-formed account is paid, except accounts
// ending in one of these suffixes, so integrators can test every path. The table is data: the
// payout worker decides by it (rails/simulated/payouts.ts), and docs/sandbox-reference.md prints the same rows.

export type Outcome = 'fail' | 'timeout' | 'reverse';

export interface MagicSuffix {
  suffix: string;
  outcome: Outcome;
  responseCode: string;
  responseMessage: string;
  /** What integrators read in docs/sandbox-reference.md. */
  behaviour: string;
}

export const MAGIC_SUFFIXES: MagicSuffix[] = [
  { suffix: '9901', outcome: 'fail', responseCode: 'F101', responseMessage: 'Beneficiary account not found', behaviour: 'fails at once' },
  { suffix: '9902', outcome: 'fail', responseCode: 'F102', responseMessage: 'Beneficiary account is closed or blocked', behaviour: 'fails at once' },
  { suffix: '9903', outcome: 'fail', responseCode: 'F103', responseMessage: 'Amount exceeds the beneficiary account limit', behaviour: 'fails at once' },
  {
    suffix: '9904',
    outcome: 'timeout',
    responseCode: 'F108',
    responseMessage: 'Connector did not respond; transfer failed',
    behaviour: 'no answer from the connector; fails after PAYOUT_TIMEOUT_SECONDS',
  },
  {
    suffix: '9905',
    outcome: 'reverse',
    responseCode: 'R101',
    responseMessage: 'Reversed by the beneficiary institution',
    behaviour: 'succeeds, then is reversed after PAYOUT_REVERSAL_SECONDS',
  },
];

export const SUCCESS = { responseCode: 'S100', responseMessage: 'Transaction successful' };
/** While the sandbox connector "has not answered" a timing-out payout. */
export const AWAITING = { responseCode: 'T101', responseMessage: 'Awaiting the connector' };
/** A payout accepted and on its way (single/add's responseCode). */
export const SUBMITTED = { responseCode: 'T100', responseMessage: 'Transfer submitted' };
/** A single payout accepted and waiting for its review or approval (levels 2 and 3: single/add's responseCode). */
export const AWAITING_APPROVAL = { responseCode: 'P100', responseMessage: 'Awaiting approval' };
/** The connector was deactivated, or stopped allowing payouts, after the payout was accepted. */
export const CONNECTOR_UNAVAILABLE = { responseCode: 'F105', responseMessage: 'Connector unavailable' };
/** The merchant was deactivated before a (scheduled) payout could start. */
export const MERCHANT_UNAVAILABLE = { responseCode: 'F106', responseMessage: 'Merchant account inactive' };

/** The documented test banks (product.md §7): they fit the bank pattern, so they are paid as they are (listed for the docs). */
export const TEST_BANKS = Array.from({ length: 10 }, (_, i) => `33338888${String(i).padStart(2, '0')}`);
/** The documented test wallets (product.md §7): always paid, though they are not MSISDNs. */
export const TEST_WALLETS = ['111100000112', '111100000221', '111100000330', '111100000445', '111100000553', '111100000662', '111100000778', '111100000889', '111100000990', '111100000498'];
