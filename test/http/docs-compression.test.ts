// The API reference arrives compressed (issue 27): /openapi.json is over half a megabyte of JSON
// and the reference's script 1.7 MB, which sent as they are kept /docs blank for seconds. Brotli or
// gzip as the client accepts, the same bytes once decoded, nothing for a client that asks for
// none; and only there: API answers keep being sent as they are (byte-for-byte replays, streamed
// exports and event streams are not put through a compressor).
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers.ts';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

const get = (url: string, acceptEncoding?: string) => t.app.inject({ method: 'GET', url, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });

describe('the API reference, compressed', () => {
  it('sends /openapi.json as brotli or gzip when accepted, the same document once decoded, and as it is otherwise', async () => {
    const plain = await get('/openapi.json');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const document = plain.rawPayload;
    expect(JSON.parse(document.toString('utf8')).openapi).toBe('3.1.0');

    const br = await get('/openapi.json', 'gzip, deflate, br');
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(zlib.brotliDecompressSync(br.rawPayload).equals(document)).toBe(true);
    expect(br.rawPayload.length).toBeLessThan(document.length / 5);

    const gzip = await get('/openapi.json', 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gzip.rawPayload).equals(document)).toBe(true);
  });

  it("compresses the reference page's own script", async () => {
    const page = await get('/docs/', 'br');
    expect(page.statusCode).toBe(200);
    const script = await get('/docs/static/swagger-ui-bundle.js', 'br');
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-encoding']).toBe('br');
    const plain = await get('/docs/static/swagger-ui-bundle.js');
    expect(zlib.brotliDecompressSync(script.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(script.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
  });

  it('leaves API answers as they are', async () => {
    const health = await get('/health/live', 'br, gzip');
    expect(health.statusCode).toBe(200);
    expect(health.headers['content-encoding']).toBeUndefined();
    const token = await t.app.inject({ method: 'POST', url: '/sandbox/v1/account/getAccessToken', headers: { 'accept-encoding': 'br, gzip' }, payload: {} });
    expect(token.statusCode).toBe(400);
    expect(token.headers['content-encoding']).toBeUndefined();
  });
});
