// The console's texts for API keys and webhooks (keys developers.*), in English and Chichewa.
import type { Entry } from './entry.ts';

export const DEVELOPER_MESSAGES = {} satisfies Record<string, Entry>;
