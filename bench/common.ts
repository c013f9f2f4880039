// Small helpers every benchmark part uses: progress on stderr, rounding, and the admin connection
// that creates and drops each part's own database.
import pg from 'pg';

export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

export const round1 = (n: number) => Math.round(n * 10) / 10;

/** `url` naming database `name` instead. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** One statement on its own connection (create / drop database cannot run in a pool's transaction). */
export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
