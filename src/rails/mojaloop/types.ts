// The Mojaloop rail's shared shapes: its per-process context, and the bodies of the callbacks it
// reads (checked against the API's schema by inbound.ts before any of these is trusted).
import type { MojaloopConfig } from '../../config.ts';
import type { SwitchClient } from './client.ts';

export interface MojaloopContext {
  config: MojaloopConfig;
  client: SwitchClient;
  /** The switch's own fspiop-source (MOJALOOP_SWITCH_FSP_ID). */
  switchFspId: string;
}

export interface PartyBody {
  party: {
    partyIdInfo: { partyIdType: string; partyIdentifier: string; partySubIdOrType?: string; fspId?: string };
    name?: string;
    personalInfo?: { complexName?: { firstName?: string; middleName?: string; lastName?: string } };
  };
}

export interface QuoteBody {
  transferAmount: { currency: string; amount: string };
  expiration: string;
  ilpPacket: string;
  condition: string;
}

export interface ErrorBody {
  errorInformation: { errorCode: string; errorDescription: string };
}

export type TransferAnswer =
  | { kind: 'put'; body: { transferState: string; fulfilment?: string; completedTimestamp?: string } }
  | { kind: 'error'; body: ErrorBody };
