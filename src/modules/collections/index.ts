// The collections module: requests to pay (E12), timed accounts and their payments, reversals.
import type { ModuleDefinition } from '../../module.ts';
import { expireRequests } from './repository.ts';
import addFakeCustomPayment from './routes/add-fake-custom-payment.ts';
import rtpAddFakeTransaction from './routes/add-fake-transaction.ts';
import collectionGet from './routes/get-transaction.ts';
import collectionList from './routes/get-transactions.ts';
import rtpInitiate from './routes/initiate.ts';
import collectionReverse from './routes/reverse.ts';
import type { RequestBatcher } from './service.ts';

export { createRequestBatcher } from './service.ts';

declare module '../../http/types.ts' {
  interface RouteContext {
    /** Concurrent E12s share inserts (undefined when INITIATE_BATCH_ROWS is 1). */
    requestBatcher: RequestBatcher | undefined;
  }
}

export const EXPIRE_TASK = 'expire_timed_accounts';

export const collectionsModule: ModuleDefinition = {
  name: 'collections',
  routes: [rtpInitiate, rtpAddFakeTransaction, addFakeCustomPayment, collectionGet, collectionList, collectionReverse],
  // Payments made up, and reversals that only simulate the connector's.
  sandboxOnlyRoutes: [rtpAddFakeTransaction, addFakeCustomPayment, collectionReverse],
  tasks: (deps) => ({
    [EXPIRE_TASK]: async () => {
      const expired = await expireRequests(deps.db);
      if (expired > 0) deps.log.info({ expired }, 'timed accounts expired');
    },
  }),
  // Timed accounts every minute: payment is refused at expiryDate exactly (checked at payment
  // time); the job only moves their status, which frees their numbers and references.
  cron: [`* * * * * ${EXPIRE_TASK} ?max=1`],
};
