// Which sections of the console each merchant-user role sees (role codes of migrations/0005 and
// 0008; names are for people and may change). Everyone sees the balances on the home page; the
// finance views (statements, analytics) are for the roles that answer for the money, not for
// initiators, who capture payouts. Unknown roles see the home page only. Part 2's actions follow
// users/permissions.ts (ACTIONS_BY_ROLE), not this table.
import type { Section } from './paths.ts';

export const SECTIONS_BY_ROLE: Readonly<Record<string, readonly Section[]>> = {
  MERC_ADMIN: ['home', 'collections', 'payouts', 'statements', 'analytics'],
  MERC_APPROVER: ['home', 'collections', 'payouts', 'statements', 'analytics'],
  MERC_REVIEWER: ['home', 'collections', 'payouts', 'statements', 'analytics'],
  MERC_INITIATOR: ['home', 'collections', 'payouts'],
  MERC_VIEWER: ['home', 'collections', 'payouts', 'statements', 'analytics'],
};

export function sectionsFor(roleCode: string): readonly Section[] {
  return SECTIONS_BY_ROLE[roleCode] ?? ['home'];
}

export function maySee(roleCode: string, section: Section): boolean {
  return sectionsFor(roleCode).includes(section);
}

/**
 * The roles that must sign in with a second factor when CONSOLE_REQUIRE_2FA is on: the ones that
 * approve payouts and manage the merchant (its users, its keys), whose password alone would move
 * money.
 */
export const TWO_FACTOR_ROLES: readonly string[] = ['MERC_ADMIN', 'MERC_APPROVER'];

export function mustUseTwoFactor(roleCode: string, required: boolean): boolean {
  return required && TWO_FACTOR_ROLES.includes(roleCode);
}
