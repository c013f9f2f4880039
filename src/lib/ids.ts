// Random identifiers from the CSPRNG. Uniqueness is the database's job (unique keys); callers
// retry on the rare collision.
import { randomInt } from 'node:crypto';

const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function pick(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export const randomUpperAlnum = (length: number) => pick(UPPER_ALNUM, length);
export const randomAlnum = (length: number) => pick(ALNUM, length);
export const randomDigits = (length: number, firstDigits = '123456789') => firstDigits[randomInt(firstDigits.length)] + pick('0123456789', length - 1);

/** Retries `fn` while it fails with a unique violation (23505); other errors pass through. */
export async function retryOnCollision<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if ((err as { code?: string }).code !== '23505' || i >= attempts) throw err;
    }
  }
}
