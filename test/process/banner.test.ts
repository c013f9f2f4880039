// The start-up banner's text (src/banner.ts); test/process/server.test.ts sees it printed by real starts.
import { describe, expect, it } from 'vitest';
import { bannerText, baseUrlOf } from '../../src/banner.ts';

const config = { mode: 'sandbox' as const, adminToken: 'an-operator-token-0123', databaseUrl: undefined, dataDir: '/srv/onekhusa/data' };
const demo = { organisationId: 'QWERTYUIOP12', merchantAccountNumber: 12345678, paymentAccountNumber: '9123456789012' };

describe('the start-up banner', () => {
  it('names the address actually bound: localhost for a wildcard host', () => {
    expect(baseUrlOf({ address: '0.0.0.0', family: 'IPv4', port: 41234 })).toBe('http://localhost:41234');
    expect(baseUrlOf({ address: '::', family: 'IPv6', port: 8080 })).toBe('http://localhost:8080');
    expect(baseUrlOf({ address: '127.0.0.1', family: 'IPv4', port: 9000 })).toBe('http://127.0.0.1:9000');
    expect(baseUrlOf({ address: '::1', family: 'IPv6', port: 9000 })).toBe('http://[::1]:9000');
  });

  it('on a later start shows the demo merchant without a secret, and how to get a new key pair', () => {
    const text = bannerText({ config, baseUrl: 'http://localhost:8080', demo, created: undefined });
    expect(text).toContain('API base URL    http://localhost:8080/sandbox/v1');
    expect(text).toContain('API reference   http://localhost:8080/docs');
    expect(text).toContain('Operator API    on');
    expect(text).toContain('merchantAccountNumber 12345678');
    expect(text).not.toContain('apiSecret');
    // The README's export line cannot be shown again: the command that issues a new pair with it is.
    expect(text).not.toContain('export BASE=');
    expect(text).toContain('npm run cli -- demo credentials\n');
    // The CLI's default URL needs no --url.
    expect(text).toContain('npm run cli -- keys create --merchant 12345678\n');
  });

  it('says when the operator API is off, and names production base URLs', () => {
    const text = bannerText({ config: { ...config, adminToken: undefined, mode: 'production', databaseUrl: 'postgres://u:p@db/x' }, baseUrl: 'http://localhost:9000', demo: undefined, created: undefined });
    expect(text).toContain('Operator API    off (ADMIN_TOKEN is not set');
    expect(text).toContain('API base URL    http://localhost:9000/live/v1 (and http://localhost:9000/sandbox/v1)');
    expect(text).toContain('restart with ADMIN_TOKEN set');
    expect(text).toContain('--url http://localhost:9000');
    expect(text).toContain('Database        DATABASE_URL\n');
    expect(text).not.toContain('postgres://');
  });

  it('on the start that creates the demo merchant shows its key pair and its console sign-in, once', () => {
    const created = { ...demo, accountName: 'Demo Shop', levelNumber: 1, currencyCode: 'MWK', clientId: 1, apiKey: 'K'.repeat(30), apiSecret: 'S'.repeat(45), consoleEmail: 'admin@demo-shop.onekhusa.local', consolePassword: 'P4ssw0rd-random1' };
    const text = bannerText({ config, baseUrl: 'http://localhost:8080', demo, created });
    expect(text).toContain('Console         http://localhost:8080/console\n');
    expect(text).toContain(`apiSecret             ${'S'.repeat(45)}`);
    expect(text).toContain('consoleEmail          admin@demo-shop.onekhusa.local\n');
    expect(text).toContain('consolePassword       P4ssw0rd-random1   (sign in at http://localhost:8080/console)\n');
    const later = bannerText({ config, baseUrl: 'http://localhost:8080', demo, created: undefined });
    expect(later).toContain('Console         http://localhost:8080/console\n');
    expect(later).not.toContain('consolePassword');
  });
});
