// E4 POST /disbursements/batch/getBatches — the merchant's batches, newest first, paged. Queued
// batches are not viewable until validated.
import { Type } from '@sinclair/typebox';
import { DateOrDateTime, MerchantAccountNumber } from '../../../http/schemas.ts';
import { pageWindow, Paging } from '../../../http/paging.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { statusesMatching } from '../lifecycle.ts';
import { listBatches } from '../repository.ts';
import { BatchSummary, SearchText } from '../schemas.ts';
import { batchSummary } from '../service.ts';
import { readDb } from '../../../db/replicas.ts';


const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  // The gateway's own example sends "2025-09-26T08:43:21.699084": a date-time is its UTC day.
  batchDate: Type.Optional(DateOrDateTime('Only batches captured this day (UTC): YYYY-MM-DD, or a date-time taken as its UTC date.', ['2025-09-26', '2025-09-26T08:43:21.699084'])),
  searchBy: Type.Optional(Type.Union(['CapturedBy', 'ReviewedBy', 'ApprovedBy', 'BatchStatus', 'BatchStatusDescription'].map((v) => Type.Literal(v)))),
  searchText: Type.Optional(SearchText),
  ...Paging,
}, { examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, pageNumber: 1, numberOfReturnedRows: 20, isIncremental: false, searchText: '' }] });

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/batch/getBatches', {
    config: { readOnly: true },
    schema: {
      tags: ['Disbursements'],
      summary: 'List batches (E4)',
      description:
        "The merchant's batches, newest first, paged (pageNumber from 1, numberOfReturnedRows; isIncremental includes the earlier " +
        'pages). Optional filters: batchDate (a UTC day) and searchBy with searchText ("" searches nothing). Batches still being ' +
        'validated (Q) are not listed until validation is done: POST /disbursements/batch/getBatch shows them.',
      body: Body,
      response: { 200: Type.Array(BatchSummary, { description: 'The page of batches, newest first.' }) },
    },
    handler: async (request) => {
      const { merchantAccountNumber, batchDate, searchBy, searchText, ...paging } = request.body;
      // Status and its description are matched on what merchants see, not on stored columns.
      const statuses = searchText && (searchBy === 'BatchStatus' || searchBy === 'BatchStatusDescription') ? statusesMatching(searchBy, searchText) : undefined;
      const { offset, limit } = pageWindow(paging);
      const rows = await listBatches(readDb(deps, merchantAccountNumber), merchantAccountNumber, { batchDate, searchBy: searchBy as never, searchText, statuses, queued: 'hidden', limit, page: { offset } });
      return rows.map(batchSummary);
    },
  });
};
export default route;
