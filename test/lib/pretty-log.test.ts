// The terminal log format (src/lib/pretty-log.ts): pino's JSON lines as `time level msg key=value…`
// when stdout is a TTY, and JSON untouched otherwise. Fake streams stand in for the terminal.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatLine, terminalDestination } from '../../src/lib/pretty-log.ts';
import { createLogger } from '../../src/runtime.ts';

function fakeStream(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  }) as Writable & { isTTY: boolean; text: () => string };
  stream.isTTY = isTTY;
  stream.text = () => chunks.join('');
  return stream;
}

describe('terminal logs', () => {
  it('formats each line for a TTY, coloured unless NO_COLOR, with secrets still redacted', () => {
    const tty = fakeStream(true);
    const log = createLogger({ logLevel: 'info' }, terminalDestination(tty, {}));
    log.warn({ accessToken: 'eyJhbGciOiJIUzI1NiJ9.secret', attempt: 2, url: '/sandbox/v1/x y' }, 'token refused');
    const coloured = tty.text();
    expect(coloured).toContain('\x1b[33mWARN \x1b[0m');
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} WARN  token refused accessToken=\[redacted\] attempt=2 url="\/sandbox\/v1\/x y"\n$/);
    expect(coloured).not.toContain('eyJhbGciOiJIUzI1NiJ9');

    const plain = fakeStream(true);
    createLogger({ logLevel: 'info' }, terminalDestination(plain, { NO_COLOR: '1' })).info('started');
    expect(plain.text()).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} INFO  started\n$/);
  });

  it('leaves JSON alone when stdout is not a terminal', () => {
    expect(terminalDestination(fakeStream(false), {})).toBeUndefined();
    const pipe = fakeStream(false);
    createLogger({ logLevel: 'info' }, pipe).info({ apiSecret: 'Plain-Secret-Value-0123456789' }, 'as JSON');
    expect(JSON.parse(pipe.text())).toMatchObject({ level: 30, msg: 'as JSON', apiSecret: '[redacted]' });
  });

  it('puts an error stack below its line and flattens request fields', () => {
    const line = JSON.stringify({ level: 50, time: Date.UTC(2026, 0, 2, 3, 4, 5, 6), pid: 1, hostname: 'h', reqId: 'r-1', req: { method: 'GET', url: '/health/live' }, err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.ts:1:1)' }, msg: 'request failed' });
    const out = formatLine(line);
    const [head, ...stack] = out.split('\n');
    expect(head).toMatch(/^\d{2}:\d{2}:\d{2}\.006 ERROR request failed reqId=r-1 req\.method=GET req\.url=\/health\/live err\.type=Error err\.message=boom$/);
    expect(stack).toEqual(['    Error: boom', '        at x (y.ts:1:1)']);
    expect(formatLine('not json')).toBe('not json');
  });
});
