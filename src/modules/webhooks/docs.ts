// What the API reference says about webhook events, from the catalogue the dispatcher uses.
import { t, type MessageKey } from '../../http/i18n.ts';
import { EVENT_ALIASES, EVENT_CODES } from './catalogue.ts';

/** The events the service sends, from the catalogue the dispatcher uses. */
export function eventsText(codes: readonly string[] = EVENT_CODES): string {
  return codes.map((code) => `\`${code}\` (${t('en', `event.${code}` as MessageKey)})`).join(', ');
}
export const EVENTS_TEXT =
  `**Events** (eventCode): ${eventsText()}. The older spellings the gateway still documents, ` +
  `${Object.entries(EVENT_ALIASES).map(([alias, current]) => `\`${alias}\` (= \`${current}\`)`).join(', ')}, fire for the same events. Other codes are stored but never fire.`;
