import { afterAll, beforeAll, it } from 'vitest';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from './helpers.ts';
let t: TestApp; let m: TestMerchant;
beforeAll(async () => { t = await startTestApp(); m = await newMerchant(t); });
afterAll(() => t.close());
it('perf2', { timeout: 300_000 }, async () => {
  const lines = Array.from({ length: 50000 }, (_, i) => ({ beneficiaryName: `Beneficiary Number ${i} Phiri`, connectorId: i % 2 ? 112400 : 212188, beneficiaryAccountNumber: i % 2 ? `2659${String(i).padStart(8, '0')}` : `10${String(i).padStart(10, '0')}`, transactionDescription: 'November wages for the staff of the shop, paid by batch ' + i, transactionAmount: 1000 + (i % 100), sourceReferenceNumber: `PAY-${i}` }));
  const payload = JSON.stringify({ header: { merchantAccountNumber: m.merchantAccountNumber, capturedBy: 'cap@x.mw' }, transactions: lines });
  for (let k = 0; k < 6; k++) {
    const t0 = performance.now();
    const res = await t.app.inject({ method: 'POST', url: `${BASE}/disbursements/batch/addJson`, headers: { ...m.auth, 'content-type': 'application/json' }, payload });
    const t1 = performance.now(); JSON.parse(payload); const t2 = performance.now();
    console.log('E8', (t1 - t0).toFixed(0), res.statusCode, 'parse', (t2 - t1).toFixed(0));
  }
});
