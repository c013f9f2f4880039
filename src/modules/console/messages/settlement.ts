// The console's texts for settlement accounts (keys settlement.*), in English and Chichewa.
import type { Entry } from './entry.ts';

export const SETTLEMENT_MESSAGES = {} satisfies Record<string, Entry>;
