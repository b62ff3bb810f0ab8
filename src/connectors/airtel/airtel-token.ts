/** An access token and how long Airtel says it lives. */
export interface IssuedToken {
  token: string;
  expiresInSeconds: number;
}

export interface TokenCache {
  /** A token believed valid: the cached one, or a new one (calls at once share one request for it). */
  bearer(): Promise<string>;
  /** Forgets `token` after Airtel refused it, unless a newer one already replaced it. */
  reject(token: string): void;
}

/**
 * Airtel's OAuth2 tokens live minutes (180 s in their samples). One is kept until shortly before it
 * expires, so that a request never leaves with a token that lapses on the way; the margin is a
 * quarter of its life, at most 30 s, so that short-lived tokens are still reused.
 */
export function tokenCache(issue: () => Promise<IssuedToken>, now: () => number = Date.now): TokenCache {
  let current: { token: string; renewAt: number } | null = null;
  let inFlight: Promise<string> | null = null;

  async function renew(): Promise<string> {
    const issued = await issue();
    const lifeMs = issued.expiresInSeconds * 1000;
    current = { token: issued.token, renewAt: now() + lifeMs - Math.min(30_000, lifeMs / 4) };
    return issued.token;
  }

  return {
    bearer() {
      if (current && now() < current.renewAt) return Promise.resolve(current.token);
      inFlight ??= renew().finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
    reject(token) {
      if (current?.token === token) current = null;
    },
  };
}
