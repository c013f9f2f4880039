// The events the service sends (product.md §11). eventCode is free-form on subscriptions;
// codes outside this list (and its older spellings, EVENT_ALIASES) are stored but never fire.
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

/**
 * Older spellings the gateway still documents: its Collections Webhooks page tells integrators to
 * subscribe to payment.reverse and payrequest.reverse, where its Webhook Events page names
 * payment.reversed and payrequest.reversed. A subscription to an older spelling fires for the same
 * events (emitEvent's `aliases`); its deliveries name the code it was made with.
 */
export const EVENT_ALIASES: Readonly<Record<string, EventCode>> = {
  'payment.reverse': 'payment.reversed',
  'payrequest.reverse': 'payrequest.reversed',
};

/** The event a subscription code stands for: itself, or the event an older spelling names. */
export function canonicalEvent(code: string): EventCode | undefined {
  return isKnownEvent(code) ? code : Object.hasOwn(EVENT_ALIASES, code) ? EVENT_ALIASES[code] : undefined;
}

/** The older spellings of `eventCode` whose subscriptions get it too. */
export function aliasesOf(eventCode: string): string[] {
  return Object.entries(EVENT_ALIASES).filter(([, current]) => current === eventCode).map(([alias]) => alias);
}

export function eventName(lang: Lang, code: string): string {
  const event = canonicalEvent(code);
  return t(lang, event ? (`event.${event}` as MessageKey) : 'event.unknown');
}
