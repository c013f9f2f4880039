// The console's texts for the team and the audit log (keys team.*), in English and Chichewa.
import type { Entry } from './entry.ts';

export const TEAM_MESSAGES = {} satisfies Record<string, Entry>;
