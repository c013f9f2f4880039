// Setup the console's tests share (the browser's half is in test/browser-kit.ts: signedInPage).
import type { CreateMerchantInput } from '../../src/modules/merchants/service.ts';
import { newMerchant, type TestApp, type TestMerchant } from '../helpers.ts';
import { consoleUser, type ConsoleUserInfo } from './client.ts';

export interface MerchantsAndAdmin {
  /** The merchant the test acts as. */
  m: TestMerchant;
  /** Another merchant ('Another Shop'), whose things `m`'s users must never reach. */
  other: TestMerchant;
  /** An administrator of `m`, invited through the API, with the password set through its form. */
  admin: ConsoleUserInfo;
}

/** A merchant (`merchant`: its name, level…), another merchant, and an administrator of the first. */
export async function merchantsAndAdmin(t: TestApp, options: { merchant?: Partial<CreateMerchantInput>; admin?: { firstName?: string } } = {}): Promise<MerchantsAndAdmin> {
  const m = await newMerchant(t, options.merchant);
  const other = await newMerchant(t, { accountName: 'Another Shop' });
  const admin = await consoleUser(t, m, { role: 'MERC_ADMIN', ...options.admin });
  return { m, other, admin };
}
