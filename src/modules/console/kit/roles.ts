// Which sections of the console each merchant-user role sees (role codes of migrations/0005 and
// 0008; names are for people and may change). Everyone sees the balances on the home page; the
// finance views (statements, analytics) are for the roles that answer for the money, not for
// initiators, who capture payouts; the developers' keys, the team and the settlement accounts are
// the administrators'. Unknown roles see the home page only. Within a section, what a user may
// change follows users/permissions.ts (ACTIONS_BY_ROLE) for payouts.
import { ROLE, type RoleCode } from '../../users/permissions.ts';
import type { Section } from './paths.ts';

export const SECTIONS_BY_ROLE: Readonly<Record<string, readonly Section[]>> = {
  [ROLE.admin]: ['home', 'collections', 'payouts', 'getPaid', 'statements', 'analytics', 'developers', 'team', 'settlement', 'sandbox'],
  [ROLE.approver]: ['home', 'collections', 'payouts', 'getPaid', 'statements', 'analytics', 'sandbox'],
  [ROLE.reviewer]: ['home', 'collections', 'payouts', 'getPaid', 'statements', 'analytics', 'sandbox'],
  [ROLE.initiator]: ['home', 'collections', 'payouts', 'getPaid', 'sandbox'],
  // Sees the money, changes nothing: no API keys, no team, no settlement accounts, no tools that move test money.
  [ROLE.viewer]: ['home', 'collections', 'payouts', 'statements', 'analytics'],
} satisfies Record<RoleCode, readonly Section[]>;

/** Sections that exist only in sandbox mode (they make test money move). */
const SANDBOX_ONLY: readonly Section[] = ['sandbox'];

export function isSandboxOnly(section: Section): boolean {
  return SANDBOX_ONLY.includes(section);
}

/** The sections `roleCode` sees, in navigation order; the sandbox-only ones only in sandbox mode. */
export function sectionsFor(roleCode: string, sandbox: boolean): readonly Section[] {
  return (SECTIONS_BY_ROLE[roleCode] ?? ['home']).filter((s) => sandbox || !SANDBOX_ONLY.includes(s));
}

export function maySee(roleCode: string, section: Section, sandbox: boolean): boolean {
  return sectionsFor(roleCode, sandbox).includes(section);
}

/**
 * The roles that must sign in with a second factor when CONSOLE_REQUIRE_2FA is on: the ones that
 * approve payouts and manage the merchant (its users, its keys), whose password alone would move
 * money.
 */
export const TWO_FACTOR_ROLES: readonly string[] = [ROLE.admin, ROLE.approver];

export function mustUseTwoFactor(roleCode: string, required: boolean): boolean {
  return required && TWO_FACTOR_ROLES.includes(roleCode);
}
