// The built package as its users get it: `tsc --strict` programs against its declarations (ES
// module and CommonJS, Node's types or the DOM's), a wrong body refused at compile time, and a real
// call through the CommonJS build.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newMerchant } from '../helpers.ts';
import { ensureSdkBuilt } from './build.ts';
import { consumer, type Consumer } from './consumer.ts';
import { run, serve, type Served } from './harness.ts';

const ESM_PROGRAM = `import { OneKhusa, OneKhusaError, verifyWebhook, type Input, type Output, type Result } from '@onekhusa-sandbox/sdk';

const client = new OneKhusa({ baseUrl: 'http://localhost:8080', apiKey: 'k', apiSecret: 's', organisationId: 'FYH0NTVW0DXK', merchantAccountNumber: 10010001 });
const input: Input<'collectionsRequestToPayInitiate'> = { merchantAccountNumber: 10010001, transactionAmount: 2500, transactionDescription: 'Shoes', referenceNumber: 'ORDER1', capturedBy: 'ops@example.mw' };
export async function main(): Promise<string> {
  const answer: Output<'collectionsRequestToPayInitiate'> = await client.call('collectionsRequestToPayInitiate', input, { idempotencyKey: 'order-1001-rtp-01' });
  // @ts-expect-error transactionAmount is a number, not a boolean
  await client.call('collectionsRequestToPayInitiate', { ...input, transactionAmount: true });
  // @ts-expect-error the body is required
  await client.call('disbursementsBatchAddJson');
  // @ts-expect-error reads take no idempotency key
  await client.call('merchantsLimitsGetAll', { merchantAccountNumber: 10010001 }, { idempotencyKey: 'order-1001-rtp-01' });
  // @ts-expect-error no such operation
  await client.call('collectionsNoSuchThing', {});
  for await (const payment of client.paginate('collectionsGetTransactions', { merchantAccountNumber: 10010001 })) {
    const amount: number = payment.transactionAmount;
    void amount;
  }
  const result: Result<Output<'merchantsAccountsGet'>> = await client.safe.call('merchantsAccountsGet', { merchantAccountNumber: 10010001 });
  if (!result.ok && result.error instanceof OneKhusaError) return result.error.errorCode;
  await verifyWebhook({ payload: '{}', headers: { 'webhook-id': 'msg_1' }, secret: 'whsec_AAAA' });
  return answer.timedAccountNumber;
}
`;

const CJS_PROGRAM = `import { OneKhusa, type Output } from '@onekhusa-sandbox/sdk';
import sdk = require('@onekhusa-sandbox/sdk');

const client: sdk.OneKhusa = new OneKhusa({ baseUrl: 'http://localhost:8080', apiKey: 'k', apiSecret: 's', organisationId: 'FYH0NTVW0DXK', merchantAccountNumber: 10010001 });
export async function limits(): Promise<Output<'merchantsLimitsGetAll'>> {
  // @ts-expect-error merchantAccountNumber is a number
  await client.call('merchantsLimitsGetAll', { merchantAccountNumber: '10010001' });
  return client.call('merchantsLimitsGetAll', { merchantAccountNumber: 10010001 });
}
`;

const WRONG_BODY = `import { OneKhusa } from '@onekhusa-sandbox/sdk';

const client = new OneKhusa({ baseUrl: 'http://localhost:8080', apiKey: 'k', apiSecret: 's', organisationId: 'FYH0NTVW0DXK', merchantAccountNumber: 10010001 });
await client.call('disbursementsSingleAdd', { merchantAccountNumber: 10010001, beneficiaryAccountNumber: 5 });
`;

let c: Consumer;

beforeAll(async () => {
  await ensureSdkBuilt();
  c = consumer();
}, 180_000);
afterAll(() => c?.remove());

describe('types of the built package (tsc --strict)', () => {
  it('a program that uses it compiles, as an ES module and as CommonJS; each @ts-expect-error line is an error', async () => {
    const files = [c.write('program.mts', ESM_PROGRAM), c.write('program.cts', CJS_PROGRAM)];
    const result = await c.typecheck(files);
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });

  it('compiles for a browser too (DOM types, no Node types)', async () => {
    const result = await c.typecheck([c.write('browser.mts', ESM_PROGRAM)], { lib: ['ES2022', 'DOM'], types: [] });
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });

  it('a wrong body does not compile', async () => {
    const result = await c.typecheck([c.write('wrong.mts', WRONG_BODY)]);
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/wrong\.mts\(4,\d+\): error TS2/);
  });
});

describe('the CommonJS build at run time', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
  });
  afterAll(() => s?.t.close());

  it('require() gives a working client', async () => {
    const m = await newMerchant(s.t);
    const program = `const { OneKhusa } = require('@onekhusa-sandbox/sdk');
const client = new OneKhusa({ baseUrl: process.env.BASE_URL, apiKey: process.env.KEY, apiSecret: process.env.SECRET, organisationId: process.env.ORG, merchantAccountNumber: process.env.ACCOUNT });
client.call('merchantsLimitsGetAll', { merchantAccountNumber: client.merchantAccountNumber }).then((limits) => console.log(JSON.stringify(limits.map((l) => l.transactionCode))));
`;
    const file = c.write('require.cjs', program);
    const env = { ...process.env, BASE_URL: s.baseUrl, KEY: m.apiKey, SECRET: m.apiSecret, ORG: m.organisationId, ACCOUNT: String(m.merchantAccountNumber) };
    const result = await run(process.execPath, [file], { cwd: c.dir, env });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(expect.arrayContaining(['MMW', 'RTP']));
  });
});
