// The console's texts for sandbox tools (keys sandboxTools.*), in English and Chichewa.
import type { Entry } from './entry.ts';

export const SANDBOX_MESSAGES = {} satisfies Record<string, Entry>;
