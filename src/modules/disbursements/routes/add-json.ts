// E8 POST /disbursements/batch/addJson — up to 50,000 payouts in one request. Idempotent.
// Structural problems are a 400 naming the lines (transactions[123].transactionAmount, the first
// 100); everything else is checked by the validation job, which marks invalid lines E.
// A large body is copied into the database while it arrives (upload.ts); a small one, or one that
// finds every copy slot taken, is stored from its parsed lines.
import { pipeline } from 'node:stream';
import type { FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import type pg from 'pg';
import { withTransaction } from '../../../db/pool.ts';
import { sendSerialized, storeResponse } from '../../../http/idempotency.ts';
import { SANDBOX_PAYOUTS_TEXT } from '../docs.ts';
import type { Deps, RouteModule } from '../../../http/types.ts';
import { BatchAccepted } from '../schemas.ts';
import { submitBatch } from '../service.ts';
import { BatchJsonBody, CopyingStream, UploadCopy, uploadCopySlots } from '../upload.ts';

/** Bodies from this size (1 MiB, about 5,000 lines) are fingerprinted by their bytes. */
export const RAW_FINGERPRINT_MIN_BYTES = 1024 * 1024;

/**
 * A large body is copied into the database while it arrives (upload.ts), at most uploadCopySlots
 * at a time and never waiting for a connection: with the pool busy, it is stored the other way.
 */
function uploadCopier(deps: Deps) {
  const bodyLimit = deps.config.batchBodyLimitBytes;
  const maxCopies = uploadCopySlots(deps.config);
  const copyDb = deps.uploadDb ?? deps.db;
  let copies = 0;
  const copying = new WeakMap<FastifyRequest, UploadCopy>();
  // After authentication, before the body is read.
  const preParsing = async (request: FastifyRequest, reply: FastifyReply, payload: RequestPayload): Promise<RequestPayload> => {
    const length = Number(request.headers['content-length']);
    const worthCopying = length >= deps.config.batchCopyMinBytes && length <= bodyLimit;
    const freeConnections = copyDb.idleCount + ((copyDb.options.max ?? maxCopies) - copyDb.totalCount);
    const merchantAccountNumber = request.principal?.merchantAccountNumber;
    if (!worthCopying || copies >= maxCopies || freeConnections < 1 || merchantAccountNumber === undefined) return payload;
    copies += 1;
    const upload = await UploadCopy.begin(copyDb, merchantAccountNumber, () => {
      copies -= 1;
    });
    if (!upload) return payload;
    copying.set(request, upload);
    // Whatever ends the request without the handler's commit (a refusal, a replay, a client
    // gone: see the route's hooks) drops the copy.
    reply.raw.once('close', () => upload.abandon());
    // A client gone before this hook ran has had its abort and 'close' already: drop it now.
    if (reply.raw.closed || request.raw.destroyed) {
      upload.abandon();
      return payload;
    }
    const copyingStream = new CopyingStream(upload, (sawEscape) => {
      request.bodyTextStorable = !sawEscape;
    });
    pipeline(payload, copyingStream, () => undefined);
    return copyingStream;
  };
  return { copying, preParsing };
}

const route: RouteModule = (app, { deps }) => {
  const { copying, preParsing } = uploadCopier(deps);
  app.post('/disbursements/batch/addJson', {
    // Retries of a large batch are compared by their bytes: its canonical form would cost a
    // third of the request (http/idempotency.ts fingerprintOfBytes).
    config: { idempotent: true, rawFingerprintMinBytes: RAW_FINGERPRINT_MIN_BYTES },
    bodyLimit: deps.config.batchBodyLimitBytes,
    schema: {
      tags: ['Disbursements'],
      summary: 'Add a batch of payouts (JSON)',
      description:
        'Accepts up to 50,000 payouts and answers at once with the batch number and status Q; validation runs in the background ' +
        '(events `batch.received` / `batch.failed`): poll POST /disbursements/batch/getBatch. Then, by the merchant\'s authorisation ' +
        'level: transferFunds (level 1), approve then transferFunds (level 2), review, approve, transferFunds (level 3). Each line\'s ' +
        'outcome arrives as `batch.payout.success`, `batch.payout.failed` or `batch.payout.reversed`. Send X-Idempotency-Key to make ' +
        'retries safe.\n\n' +
        SANDBOX_PAYOUTS_TEXT,
      body: BatchJsonBody,
      response: { 200: { ...BatchAccepted, description: 'The batch was accepted: its number and status Q (queued for validation).' } },
    },
    preParsing,
    // The parse held the event loop while the copy's writes queued up: one turn lets them out, so
    // the database takes them in while validation holds the loop again (see upload.ts).
    preValidation: async (request) => {
      if (copying.has(request)) await new Promise((resolve) => setImmediate(resolve));
    },
    // After the commit these do nothing.
    onResponse: async (request) => copying.get(request)?.abandon(),
    onRequestAbort: async (request) => copying.get(request)?.abandon(),
    handler: async (request, reply) => {
      const { header, transactions } = request.body;
      const submit = async (tx: pg.PoolClient, uploadId?: string) => {
        const accepted = await submitBatch(deps, tx, { ...header, uploadType: 'JSON', transactions, uploadId });
        return storeResponse(tx, request, reply, 200, accepted);
      };
      const copied = await copying.get(request)?.commitWith(submit);
      const body = copied ? copied.result : await withTransaction(deps.db, (tx) => submit(tx));
      return sendSerialized(reply, body);
    },
  });
};
export default route;
