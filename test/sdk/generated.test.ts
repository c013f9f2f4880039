// The SDK's generated sources are the service's current OpenAPI document: regenerated in memory
// from scripts/openapi.ts and compared with the checked-in files.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedFiles, loadDocument, operationMetadata, merchantDocument } from '../../packages/sdk/scripts/generate.ts';
import { SDK_ROOT } from './build.ts';

const STALE = 'stale: run `npm run -w @onekhusa-sandbox/sdk generate` and commit packages/sdk/src/generated/';

describe('generated sources', () => {
  it('match the document the service serves', async () => {
    const document = await loadDocument();
    const files = await generatedFiles(document);
    for (const [name, text] of Object.entries(files)) {
      const checkedIn = fs.readFileSync(path.join(SDK_ROOT, 'src/generated', name), 'utf8');
      // A whole-file diff of 400 kB says nothing: name the file and the first line that differs.
      if (checkedIn !== text) {
        const ours = checkedIn.split('\n');
        const line = text.split('\n').findIndex((l, i) => l !== ours[i]);
        expect.fail(`src/generated/${name} is ${STALE} (first difference at line ${line + 1}: ${JSON.stringify(text.split('\n')[line]?.slice(0, 200))})`);
      }
    }

    // Every merchant operation is the SDK's; operator (/admin/v1) and health routes are not.
    const meta = operationMetadata(merchantDocument(document));
    const merchantIds = Object.entries<Record<string, { operationId: string }>>(document.paths)
      .filter(([route]) => route.startsWith('/sandbox/v1/'))
      .flatMap(([, item]) => Object.values(item).map((op) => op.operationId));
    expect(Object.keys(meta).sort()).toEqual(merchantIds.sort());
    // The idempotency header is declared on the money-moving writes and on nothing else.
    expect(meta.collectionsRequestToPayInitiate.idempotent).toBe(true);
    expect(meta.disbursementsBatchAddJson.idempotent).toBe(true);
    expect(meta.collectionsGetTransactions.idempotent).toBe(false);
    expect(meta.collectionsGetTransactions.paged).toMatchObject({ itemsKey: null });
    expect(meta.disbursementsBatchGetTransactions.paged).toMatchObject({ itemsKey: 'message' });
    expect(meta.accountGetAccessToken.auth).toBe(false);
  });
});
