// What the developers routes share: the section's route config and
// turning a refusal into what a form shows (a message per field where the refusal names one).
import { AppError } from '../../../http/errors.ts';
import type { Lang, MessageKey } from '../../../http/i18n.ts';
import { ConsoleRefusal, refusalOf } from '../kit/actions.tsx';
import { ct } from './texts.ts';
import type { FormState } from './pages/developers.tsx';

export const DEVELOPERS_CONFIG = { consoleAccess: 'user', consoleSection: 'developers' } as const;

/** A form refused: its status, the message at its top, and one per field. */
export interface Failure {
  status: number;
  message?: string;
  errors: Record<string, string>;
}

/**
 * What a refusal means for the form that was sent: a ConsoleRefusal (the console's own checks) as
 * it is; a service's AppError (refusalOf) under the field `fieldOf` names for its message key, else
 * at the top. A "not found" is rethrown (the console's 404 page: the thing is gone or another
 * merchant's), and so is anything that is not a refusal (a 500).
 */
export function failureOf(err: unknown, lang: Lang, fieldOf: (detailKey: MessageKey | undefined) => string | undefined = () => undefined): Failure {
  if (err instanceof ConsoleRefusal) return { status: err.status, message: err.message, errors: err.fields };
  const refusal = refusalOf(err, lang);
  if (!refusal || !(err instanceof AppError) || err.kind === 'notFound') throw err;
  const field = fieldOf(err.detailKey);
  if (field) return { status: refusal.status, message: ct(lang, 'developers.checkFields'), errors: { [field]: refusal.message } };
  return { status: refusal.status, message: refusal.message, errors: {} };
}

export function failedForm(values: Record<string, string>, failure: Failure): FormState {
  return { values, errors: failure.errors, message: failure.message };
}

/** A refusal of the console's own checks: `errors` by field, with the summary at the top. */
export function fieldRefusal(lang: Lang, errors: Record<string, string>): ConsoleRefusal {
  return new ConsoleRefusal(400, ct(lang, 'developers.checkFields'), errors);
}

/** A calendar day typed as YYYY-MM-DD that exists; undefined otherwise. */
export function parseDay(value: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const at = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === value ? at : undefined;
}

export const DAY_MS = 86_400_000;

/** The UTC day of `at` as YYYY-MM-DD. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}
