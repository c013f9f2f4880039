// The console's static files, served by the service itself (no CDN, no build step): its
// stylesheet (kit/assets/console.css, hand-written) and htmx from the installed htmx.org package.
// Read once when the module loads. Pages link them as /console/assets/NAME?v=HASH (a hash of the
// content): such an address never changes content, so browsers may keep it for a year without
// asking (immutable); any other address of the file is answered with no-cache and an ETag, and a
// matching If-None-Match gets 304.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ASSETS_PATH } from './paths.ts';

const require = createRequire(import.meta.url);

export interface Asset {
  name: string;
  contentType: string;
  body: Buffer;
  /** 16 hex characters of the content's SHA-256. */
  hash: string;
  /** Where pages link it: its content hash in the address. */
  url: string;
}

/** One file, or several joined in order (the stylesheet: one file per area of the console, one download). */
function asset(name: string, contentType: string, file: string | readonly string[]): Asset {
  const body = Buffer.concat((typeof file === 'string' ? [file] : file).map((f) => fs.readFileSync(f)));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { name, contentType, body, hash, url: `${ASSETS_PATH}/${name}?v=${hash}` };
}

/** The stylesheet's parts: the frame and part 1's pages, then each area of part 2. */
const STYLESHEETS = ['console.css', 'payouts.css', 'developers.css', 'team.css', 'settlement.css', 'getting-paid.css', 'sandbox.css'] as const;

/** The script's parts, joined in this order into console.js. */
const SCRIPTS = ['console.js', 'payouts.js', 'developers.js', 'getting-paid.js'] as const;

export const ASSETS: ReadonlyMap<string, Asset> = new Map(
  [
    asset(
      'console.css',
      'text/css; charset=utf-8',
      STYLESHEETS.map((f) => fileURLToPath(new URL(`./assets/${f}`, import.meta.url))),
    ),
    // The console's own behaviour (copy buttons, countdowns, upload progress, live pages): one file
    // per area, each enhancing only elements that ask for it (data-* attributes) and doing nothing
    // where the page has none; every page works without it.
    asset(
      'console.js',
      'text/javascript; charset=utf-8',
      SCRIPTS.map((f) => fileURLToPath(new URL(`./assets/${f}`, import.meta.url))),
    ),
    // htmx 2: progressive enhancement for paging and filters. Configured by the page's
    // <meta name="htmx-config"> (layout.tsx): no eval, no inline indicator styles (the CSP has neither).
    asset('htmx.min.js', 'text/javascript; charset=utf-8', require.resolve('htmx.org/dist/htmx.min.js')),
  ].map((a) => [a.name, a]),
);

export function assetUrl(name: 'console.css' | 'console.js' | 'htmx.min.js'): string {
  const found = ASSETS.get(name);
  if (!found) throw new Error(`no console asset ${name}`);
  return found.url;
}

/** A year: the longest lifetime caches honour. */
const IMMUTABLE_MAX_AGE_SECONDS = 365 * 24 * 3600;

export interface AssetAnswer {
  status: 200 | 304;
  headers: Record<string, string>;
  body?: Buffer;
}

/** The answer for `name` asked as version `version` (the ?v= of the link), given the request's If-None-Match. */
export function answerAsset(a: Asset, version: string | undefined, ifNoneMatch: string | undefined): AssetAnswer {
  const etag = `"${a.hash}"`;
  const headers: Record<string, string> = {
    'content-type': a.contentType,
    etag,
    'cache-control': version === a.hash ? `public, max-age=${IMMUTABLE_MAX_AGE_SECONDS}, immutable` : 'no-cache',
  };
  const matches = ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
  if (matches) return { status: 304, headers };
  return { status: 200, headers, body: a.body };
}
