// The access token: asked for on first use, renewed shortly before it expires (the gateway has no
// refresh: the client asks again with its key pair), one request shared by every call waiting.

/** Renew this long before the token's end, so a call never leaves with a token about to lapse. */
const REFRESH_EARLY_MS = 30_000;

/** What getAccessToken answers (expiresOn too, on the server's clock, which the client does not trust). */
export interface TokenAnswer {
  accessToken: string;
  expiryInMinutes: number;
}

export class AccessTokens {
  private current: { token: string; renewAtMs: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly request: () => Promise<TokenAnswer>,
    private readonly nowMs: () => number,
  ) {}

  /** A token good for a while yet. */
  async get(): Promise<string> {
    if (this.current && this.nowMs() < this.current.renewAtMs) return this.current.token;
    return this.renew();
  }

  /**
   * After `rejected` was refused (401): a new token, unless another call already got one since.
   * Concurrent callers share one request.
   */
  async replace(rejected: string): Promise<string> {
    if (this.current && this.current.token !== rejected) return this.current.token;
    this.current = undefined;
    return this.renew();
  }

  private renew(): Promise<string> {
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetchToken(): Promise<string> {
    // The lifetime counts from before the request: the local clock decides, whatever the server's says.
    const askedAtMs = this.nowMs();
    const answer = await this.request();
    const lifetimeMs = answer.expiryInMinutes * 60_000;
    // A lifetime of a minute or less renews at half of it, not at once.
    const renewAfterMs = Math.max(lifetimeMs - REFRESH_EARLY_MS, lifetimeMs / 2);
    this.current = { token: answer.accessToken, renewAtMs: askedAtMs + renewAfterMs };
    return answer.accessToken;
  }
}
