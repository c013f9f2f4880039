// The collection requests more than one part sends: E12 (request to pay) and its payment.
import { SANDBOX } from './api.ts';

export const E12_PATH = `${SANDBOX}/collections/requestToPay/initiate`;
export const PAY_PATH = `${SANDBOX}/collections/requestToPay/addFakeTransaction`;
/** The wallet customers pay from (Airtel Money). */
export const PAY_CONNECTOR_ID = 112400;
export const COLLECTION_AMOUNT = '1500.00';
export const COLLECTION_AMOUNT_MINOR = 150_000;
export const COLLECTION_DESCRIPTION = 'Bench request to pay';
export const COLLECTION_CAPTURED_BY = 'bench@example.mw';

export function e12Body(merchantAccountNumber: number, referenceNumber: string): string {
  return JSON.stringify({ merchantAccountNumber, transactionAmount: COLLECTION_AMOUNT, transactionDescription: COLLECTION_DESCRIPTION, referenceNumber, capturedBy: COLLECTION_CAPTURED_BY });
}

/** addFakeTransaction paying `timedAccountNumber` the requested COLLECTION_AMOUNT. */
export function payBody(merchantAccountNumber: number, timedAccountNumber: string): string {
  return JSON.stringify({ merchantAccountNumber, transactionAmount: COLLECTION_AMOUNT, connectorId: PAY_CONNECTOR_ID, timedAccountNumber, currencyCode: 'MWK', capturedBy: COLLECTION_CAPTURED_BY });
}
