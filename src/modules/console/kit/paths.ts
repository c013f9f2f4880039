// The console's addresses, in one place: its pages link to each other with these, and the
// set-password page (src/modules/users) ends with a link to sign in.
export const CONSOLE_PATH = '/console';
export const SIGN_IN_PATH = '/console/sign-in';
export const SIGN_IN_CHOOSE_PATH = '/console/sign-in/choose';
export const SIGN_IN_CODE_PATH = '/console/sign-in/code';
export const SECURITY_PATH = '/console/security';
export const TWO_FACTOR_PATH = '/console/security/two-factor';
export const TWO_FACTOR_CONFIRM_PATH = '/console/security/two-factor/confirm';
export const TWO_FACTOR_REMOVE_PATH = '/console/security/two-factor/remove';
export const PAYOUT_DECISIONS_PATH = '/console/security/payout-decisions';
export const SIGN_OUT_PATH = '/console/sign-out';
export const FORGOT_PASSWORD_PATH = '/console/forgot-password';
export const RESET_PASSWORD_PATH = '/console/reset-password';
export const ASSETS_PATH = '/console/assets';

/** The sections of the navigation, in its order, with their addresses. */
export const SECTION_PATHS = {
  home: CONSOLE_PATH,
  collections: '/console/collections',
  payouts: '/console/payouts',
  statements: '/console/statements',
  analytics: '/console/analytics',
  getPaid: '/console/get-paid',
  developers: '/console/developers',
  team: '/console/team',
  settlement: '/console/settlement-accounts',
  sandbox: '/console/sandbox',
} as const;

export type Section = keyof typeof SECTION_PATHS;

/** The held e-mails (sandbox mode): the sandbox area shows them; the team and sign-in pages link to them. */
export const SANDBOX_OUTBOX_PATH = `${SECTION_PATHS.sandbox}/outbox`;

/** A collection's page: the collections area shows it, others link to it. */
export function collectionPath(transactionReferenceNumber: string): string {
  return `${SECTION_PATHS.collections}/${encodeURIComponent(transactionReferenceNumber)}`;
}

/** A request to pay's (or checkout's) page: Get paid shows it, the sandbox tools link to it. */
export function paymentRequestPath(requestId: number): string {
  return `${SECTION_PATHS.getPaid}/requests/${requestId}`;
}
