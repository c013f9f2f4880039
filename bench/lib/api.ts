// A client of the sandbox API over undici, for parts that send requests one at a time: bearer
// tokens fetched (and renewed) from the merchant's credentials, each answer timed.
import { Agent, request as undiciRequest } from 'undici';
import { log, sleep } from './common.ts';

/** Where the merchant API's routes are mounted. */
export const SANDBOX = '/sandbox/v1';

export interface Answer<T> {
  status: number;
  ms: number;
  body: T;
  text: string;
}

export class Api {
  private token = '';
  private tokenAt = Number.NEGATIVE_INFINITY;
  /** `label` names the part in the log line of a 429 waited out. */
  constructor(
    private readonly baseUrl: string,
    private readonly agent: Agent,
    private readonly credentials: string,
    private readonly label = 'disbursements',
  ) {}

  /** Tokens last 5 minutes: a new one after 4. */
  private async bearer(): Promise<string> {
    if (performance.now() - this.tokenAt < 240_000) return this.token;
    const res = await undiciRequest(`${this.baseUrl}${SANDBOX}/account/getAccessToken`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: this.credentials,
      dispatcher: this.agent,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`token request failed: HTTP ${res.statusCode} ${text}`);
    this.token = (JSON.parse(text) as { accessToken: string }).accessToken;
    this.tokenAt = performance.now();
    return this.token;
  }

  /** POST; `ms` is from the request's start to the end of the response body. */
  async post<T>(route: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer<T>> {
    const authorization = `Bearer ${await this.bearer()}`;
    for (let attempt = 0; ; attempt++) {
      const t0 = performance.now();
      const res = await undiciRequest(`${this.baseUrl}${SANDBOX}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization, ...headers },
        body,
        dispatcher: this.agent,
      });
      const text = await res.body.text();
      const ms = performance.now() - t0;
      // The default rate limit (50 requests/s per merchant) may be left on; the parts stay under
      // it, but a 429 is waited out rather than counted as an answer.
      if (res.statusCode === 429 && attempt < 5) {
        log(`${this.label}: 429 on ${route}; waiting a second`);
        await sleep(1000);
        continue;
      }
      let parsed: unknown = undefined;
      try {
        parsed = JSON.parse(text);
      } catch {
        // left undefined
      }
      return { status: res.statusCode, ms, body: parsed as T, text };
    }
  }

  async expect<T>(route: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer<T>> {
    const a = await this.post<T>(route, body, headers);
    if (a.status !== 200) throw new Error(`${route}: HTTP ${a.status} ${a.text.slice(0, 600)}`);
    return a;
  }
}
