// The rails group: the payment rails as the operator sees them (src/rails/operator.ts), and the
// reconciliation of a rail's record with our ledger (src/rails/reconciliation/).
import { adminCall } from './request.ts';
import { printJson, usage, wholeNumber, type CliCommand, type Values } from './shared.ts';

/** How long `rails reconcile` waits for its run by default, and how often it looks. */
const RECONCILE_WAIT_SECONDS = 300;
const RECONCILE_POLL_MS = 1000;

interface Run {
  runId: number;
  status: string;
}

/** Polls a run until it is finished or failed, or `waitSeconds` have passed; the run as last seen. */
async function waitForRun(base: URL, values: Values, run: Run, waitSeconds: number): Promise<Run> {
  const deadline = Date.now() + waitSeconds * 1000;
  while ((run.status === 'queued' || run.status === 'running') && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, RECONCILE_POLL_MS));
    run = (await adminCall(base, 'GET', `/admin/v1/rails/reconciliations/${run.runId}`, values, {})) as Run;
  }
  return run;
}

export const commands: CliCommand[] = [
  {
    name: 'rails health',
    usage: `\
  rails health
      Each payment rail with the connector ids it carries and, for its payouts and its
      collections, the last success and failure, successes, failures and error rate in the
      last hour, transfers in flight and overdue, and the age of the oldest in flight.
`,
    options: [],
    server: true,
    async run(values, base) {
      printJson(await adminCall(base, 'GET', '/admin/v1/rails', values, {}));
    },
  },
  {
    name: 'rails unknown',
    usage: `\
  rails unknown [--limit N]
      Payouts sent over a rail and still unanswered past their expiry, oldest first (N ≤ 1000,
      default 100). The service keeps asking the switch about each; none is failed or resent.
`,
    options: ['limit'],
    server: true,
    async run(values, base) {
      printJson(await adminCall(base, 'GET', '/admin/v1/rails/payouts/unknown', values, { query: { limit: wholeNumber(values, 'limit') } }));
    },
  },
  {
    name: 'rails traffic',
    usage: `\
  rails traffic --reference TRANSACTION_REFERENCE_NUMBER | --collection TRANSACTION_REFERENCE_NUMBER|TRANSFER_ID
      One payout's (--reference) or collection's (--collection; a transfer never credited by its
      id) way over its rail: its ids and phase, the other DFSP, and every message sent and
      received, oldest first (routing headers only; the fulfilment only once committed).
`,
    options: ['reference', 'collection'],
    server: true,
    async run(values, base) {
      if ((values.reference === undefined) === (values.collection === undefined)) usage('give one of --reference (a payout) or --collection (a collection)');
      const reference = (values.reference ?? values.collection ?? '').trim();
      const option = values.reference !== undefined ? 'reference' : 'collection';
      const transferId = option === 'collection' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(reference);
      if (!transferId && !/^[A-Z0-9]{12}$/.test(reference)) {
        usage(option === 'reference' ? "--reference must be a payout's 12-character transactionReferenceNumber" : "--collection must be a collection's 12-character transactionReferenceNumber or an inbound transfer's id");
      }
      printJson(await adminCall(base, 'GET', `/admin/v1/rails/${option === 'reference' ? 'payouts' : 'collections'}/${reference}`, values, {}));
    },
  },
  {
    name: 'rails reconcile',
    usage: `\
  rails reconcile --day YYYY-MM-DD [--wait-seconds N]
      Compares every transfer of that UTC day over the Mojaloop rail with the switch's record
      and lists the differences as exceptions (see rails exceptions). The daily job does
      yesterday by itself. Waits up to N seconds (default 300; 0: do not wait) for the run and
      prints it with its counts.
`,
    options: ['day', 'wait-seconds'],
    server: true,
    async run(values, base) {
      const day = values.day?.trim();
      if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) usage('--day must be a UTC day, YYYY-MM-DD');
      const waitSeconds = wholeNumber(values, 'wait-seconds') ?? RECONCILE_WAIT_SECONDS;
      const run = (await adminCall(base, 'POST', '/admin/v1/rails/reconciliations', values, { body: { day, rail: 'mojaloop' } })) as Run;
      printJson(await waitForRun(base, values, run, waitSeconds));
    },
  },
  {
    name: 'rails exceptions',
    usage: `\
  rails exceptions [--all] [--limit N] [--after ID]
      The reconciliation's exceptions still open (--all: resolved ones too), oldest first, N at
      a time (N ≤ 1000, default 100), after exception ID.
`,
    options: ['all', 'limit', 'after'],
    server: true,
    async run(values, base) {
      const query = { open: values.all ? undefined : 'true', limit: wholeNumber(values, 'limit'), afterExceptionId: wholeNumber(values, 'after') };
      printJson(await adminCall(base, 'GET', '/admin/v1/rails/exceptions', values, { query }));
    },
  },
  {
    name: 'rails resolve',
    usage: `\
  rails resolve --id EXCEPTION_ID --action correct|accept --reason TEXT [--by EMAIL]
      Resolves a reconciliation exception: correct books one correcting ledger transfer
      (docs/operations.md, Reconciliation); accept keeps our record (the rail's was wrong).
      The reason, who (--by, default "admin") and when are kept with it.
`,
    options: ['id', 'action', 'reason', 'by'],
    server: true,
    async run(values, base) {
      const id = wholeNumber(values, 'id');
      if (id === undefined || id < 1) usage('missing --id (the exception\'s id, from rails exceptions)');
      if (values.action !== 'correct' && values.action !== 'accept') usage('--action must be correct or accept');
      const reason = values.reason?.trim();
      if (!reason || reason.length < 3) usage('--reason must say why (3 characters or more)');
      const body = { action: values.action, reason, ...(values.by ? { resolvedBy: values.by.trim() } : {}) };
      printJson(await adminCall(base, 'POST', `/admin/v1/rails/exceptions/${id}/resolve`, values, { body }));
    },
  },
];
