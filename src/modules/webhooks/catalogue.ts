// The events the service sends (product.md §11). eventCode is free-form on subscriptions;
// codes outside this list are stored but never fire.
import { t, type Lang, type MessageKey } from '../../http/i18n.ts';

export const EVENT_CODES = [
  'payment.success',
  'payment.reversed',
  'payrequest.success',
  'payrequest.reversed',
  'batch.received',
  'batch.failed',
  'batch.payout.success',
  'batch.payout.failed',
  'batch.payout.reversed',
  'payout.success',
  'payout.failed',
  'payout.reversed',
] as const;

export type EventCode = (typeof EVENT_CODES)[number];

export function isKnownEvent(code: string): code is EventCode {
  return (EVENT_CODES as readonly string[]).includes(code);
}

export function eventName(lang: Lang, code: string): string {
  return t(lang, isKnownEvent(code) ? (`event.${code}` as MessageKey) : 'event.unknown');
}
