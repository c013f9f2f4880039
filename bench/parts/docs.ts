// The API reference as a newcomer opens it (issue 27): the service as `npm start` runs it (a child
// process), Debian's Chromium opening /docs in a fresh browser context each time (nothing cached),
// and the time until the first operation is on screen (`.opblock`), with what crossed the wire.
// Twice: as browsers ask (br, gzip) and with compression refused (Accept-Encoding: identity),
// which is how the reference was sent before it was compressed. Five cold loads each, interleaved.
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { log, round1 } from '../lib/common.ts';
import type { BenchContext } from '../lib/context.ts';
import { startService, stopService } from '../lib/service.ts';

const CHROMIUM = '/usr/bin/chromium';
const RUNS = 5;

interface Load {
  firstOperationMs: number;
  transferredBytes: number;
}

async function openDocs(browser: Browser, baseUrl: string, acceptEncoding: 'identity' | undefined): Promise<Load> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    if (acceptEncoding) await page.setExtraHTTPHeaders({ 'accept-encoding': acceptEncoding });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    // What crossed the wire, headers included, as DevTools counts it.
    let transferredBytes = 0;
    cdp.on('Network.loadingFinished', (event: { encodedDataLength: number }) => (transferredBytes += event.encodedDataLength));
    const started = performance.now();
    await page.goto(`${baseUrl}/docs`);
    await page.waitForSelector('.opblock', { timeout: 60_000 });
    const firstOperationMs = performance.now() - started;
    return { firstOperationMs: round1(firstOperationMs), transferredBytes };
  } finally {
    await context.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function benchDocs(ctx: BenchContext): Promise<object> {
  if (!fs.existsSync(CHROMIUM)) return { skipped: `no browser at ${CHROMIUM} (apt-get install chromium)` };
  const service = await startService(ctx.databaseUrl);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const compressed: Load[] = [];
    const uncompressed: Load[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      compressed.push(await openDocs(browser, service.baseUrl, undefined));
      uncompressed.push(await openDocs(browser, service.baseUrl, 'identity'));
      log(`docs: run ${run + 1}/${RUNS}: ${compressed.at(-1)!.firstOperationMs} ms compressed, ${uncompressed.at(-1)!.firstOperationMs} ms not`);
    }
    const summary = (loads: Load[]) => ({
      firstOperationMsMedian: median(loads.map((l) => l.firstOperationMs)),
      firstOperationMs: loads.map((l) => l.firstOperationMs),
      transferredBytes: median(loads.map((l) => l.transferredBytes)),
    });
    return { runs: RUNS, compressed: summary(compressed), uncompressed: summary(uncompressed) };
  } finally {
    await browser.close();
    await stopService(service);
  }
}
