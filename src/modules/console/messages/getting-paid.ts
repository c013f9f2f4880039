// The console's texts for requests to pay and checkout links (keys getPaid.*), in English and Chichewa.
import type { Entry } from './entry.ts';

export const GETTING_PAID_MESSAGES = {} satisfies Record<string, Entry>;
