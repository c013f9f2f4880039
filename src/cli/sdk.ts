// The CLI's merchant-API calls go through the SDK (packages/sdk), as a merchant's own code would:
// the key pair's client, and its errors worded for stderr as the other commands word theirs.
import { OneKhusa, OneKhusaConnectionError, OneKhusaError } from '../../packages/sdk/src/index.ts';
import { shown } from './request.ts';
import { FailureError } from './shared.ts';

export interface KeyPair {
  apiKey: string;
  apiSecret: string;
  organisationId: string;
  merchantAccountNumber: number;
}

export function merchantClient(base: URL, keyPair: KeyPair): OneKhusa {
  return new OneKhusa({ baseUrl: base.toString(), ...keyPair });
}

/** A refusal: the problem body, pretty-printed; no answer at all: one line naming the server. */
export function failure(err: unknown, base?: URL): FailureError {
  if (err instanceof OneKhusaError) return new FailureError(JSON.stringify(err.problem ?? { status: err.status, detail: err.message }, null, 2));
  if (err instanceof OneKhusaConnectionError) return new FailureError(`cannot reach ${base ? shown(base) : 'the server'} — is the server running? (${err.message})`);
  return err instanceof FailureError ? err : new FailureError(String((err as Error).message ?? err));
}
