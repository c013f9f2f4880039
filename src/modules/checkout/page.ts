// The checkout page as one self-contained HTML document: inline CSS and JS under a per-response
// nonce, no external asset of any kind (no fonts, images, CDN), so the page works offline from
// everything but this service and its Content-Security-Policy can be `default-src 'none'`.
// Laid out for a phone first (a single column, 375 px wide and up), in English or Chichewa.
import { randomBytes } from 'node:crypto';
import { t, type Lang } from '../../http/i18n.ts';
import { formatMajor } from '../../lib/money.ts';
import type { CheckoutView } from './service.ts';

export interface RenderedPage {
  html: string;
  /** The Content-Security-Policy that goes with this document (its nonce). */
  csp: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text → HTML text or attribute value. Every value from the database goes through it. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

function policy(nonce: string, formTargets: string[]): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    // The favicon is an inline data: URL, so the browser asks this service for nothing else.
    'img-src data:',
    // The form posts here, and the 303 answer sends the browser on to the merchant's URLs.
    `form-action 'self' ${formTargets.join(' ')}`.trim(),
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:#eef2f6;color:#14202b;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.wrap{max-width:440px;margin:0 auto;padding:16px 14px 28px}
.top{display:flex;align-items:center;justify-content:space-between;gap:8px;margin-bottom:12px}
.brand{font-weight:700;letter-spacing:.02em;color:#0b5f4a}
.badge{font-size:12px;background:#fff4d6;color:#7a5200;border:1px solid #f0d48a;border-radius:999px;padding:2px 10px}
.card{background:#fff;border-radius:16px;box-shadow:0 1px 3px rgba(20,32,43,.12);padding:18px}
.muted{color:#5b6b79;font-size:14px;margin:0}
.merchant{font-size:20px;font-weight:700;margin:2px 0 12px;overflow-wrap:anywhere}
.amount{font-size:32px;font-weight:800;margin:2px 0 4px;letter-spacing:-.01em}
.desc{margin:0 0 12px;overflow-wrap:anywhere}
.row{display:flex;justify-content:space-between;gap:12px;font-size:14px;padding:8px 0;border-top:1px solid #e6ebf0}
.row span:last-child{font-weight:600;text-align:right;overflow-wrap:anywhere}
.timed{margin:14px 0 16px;padding:14px;border-radius:12px;background:#e9f6f1;border:1px solid #bfe3d4}
.tan{display:block;font:700 28px/1.2 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.08em;margin:4px 0}
.count{font-weight:700;font-variant-numeric:tabular-nums}
.timed.late{background:#fdecea;border-color:#f5c2bd}
label{display:block;font-weight:600;margin:0 0 6px}
select{width:100%;font:inherit;padding:12px;border:1px solid #b8c4cf;border-radius:10px;background:#fff;color:inherit;min-height:48px}
select:focus,button:focus{outline:3px solid #7cc4ad;outline-offset:2px}
.pay{display:block;width:100%;margin-top:14px;font:inherit;font-weight:700;font-size:18px;padding:14px;border:0;border-radius:12px;background:#0b7a5f;color:#fff;min-height:52px;cursor:pointer}
.pay[disabled]{background:#9aa8b3;cursor:not-allowed}
.cancel{display:block;width:100%;margin-top:10px;font:inherit;font-size:15px;padding:10px;border:0;background:none;color:#23527c;text-decoration:underline;cursor:pointer}
.expired{display:none;margin:12px 0 0;color:#a12a1d;font-weight:600}
.is-expired .expired{display:block}
.langs{margin-top:16px;text-align:center;font-size:14px;color:#5b6b79}
.langs a{color:#23527c;margin:0 6px}
.langs a[aria-current]{font-weight:700;color:#14202b;text-decoration:none}
.msg h1{font-size:22px;margin:0 0 8px}
`;

const SCRIPT = `
(function () {
  var form = document.getElementById('checkout');
  var count = document.getElementById('countdown');
  var pay = document.getElementById('pay');
  var select = document.getElementById('connector');
  var timed = document.getElementById('timed');
  var left = Number(count.getAttribute('data-seconds')) || 0;
  // Counted from this page's own clock (monotonic): the customer's wall clock may be wrong.
  var started = performance.now();
  var timer;
  function two(n) { return (n < 10 ? '0' : '') + n; }
  function tick() {
    var s = Math.max(0, left - Math.floor((performance.now() - started) / 1000));
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    count.textContent = (h > 0 ? h + ':' + two(m) : String(m)) + ':' + two(s % 60);
    if (s <= 60) timed.classList.add('late');
    if (s === 0) {
      clearInterval(timer);
      form.classList.add('is-expired');
      pay.disabled = true;
      select.disabled = true;
      var back = document.getElementById('cancel');
      back.textContent = back.getAttribute('data-expired-label');
    }
  }
  tick();
  timer = setInterval(tick, 250);
  var sent = false;
  form.addEventListener('submit', function (event) {
    // One submission per page: a double tap must not send a second Pay.
    if (sent) { event.preventDefault(); return; }
    sent = true;
    var by = event.submitter;
    if (!by || by === pay) { pay.textContent = pay.getAttribute('data-busy-label'); pay.setAttribute('aria-busy', 'true'); }
  });
})();
`;

function shell(lang: Lang, nonce: string, title: string, body: string, withScript: boolean): string {
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<div class="wrap">
<div class="top"><span class="brand">${escapeHtml(t(lang, 'checkout.title'))}</span><span class="badge">${escapeHtml(t(lang, 'checkout.sandbox'))}</span></div>
${body}
</div>
${withScript ? `<script nonce="${nonce}">${SCRIPT}</script>` : ''}
</body>
</html>
`;
}

function languageLinks(lang: Lang, ptid: string | undefined): string {
  const names: Record<Lang, string> = { en: 'English', ny: 'Chichewa' };
  const links = (Object.keys(names) as Lang[]).map((code) => {
    const href = `/checkout/pay?${ptid ? `ptid=${encodeURIComponent(ptid)}&` : ''}lang=${code}`;
    return `<a href="${escapeHtml(href)}" hreflang="${code}" lang="${code}"${code === lang ? ' aria-current="true"' : ''}>${names[code]}</a>`;
  });
  return `<nav class="langs" aria-label="${escapeHtml(t(lang, 'checkout.language'))}">${links.join('')}</nav>`;
}

function minutesSeconds(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

export function renderCheckout(lang: Lang, view: CheckoutView): RenderedPage {
  const nonce = randomBytes(16).toString('base64');
  const amount = `${view.currencyCode} ${formatMajor(view.amountMinor)}`;
  const option = (c: CheckoutView['connectors'][number]) => `<option value="${c.connector_id}">${escapeHtml(c.connector_name)}</option>`;
  const wallets = view.connectors.filter((c) => c.channel_code === 'M');
  const banks = view.connectors.filter((c) => c.channel_code === 'B');
  const group = (label: string, list: CheckoutView['connectors']) => (list.length ? `<optgroup label="${escapeHtml(label)}">${list.map(option).join('')}</optgroup>` : '');
  const body = `<main class="card">
<p class="muted">${escapeHtml(t(lang, 'checkout.payTo'))}</p>
<p class="merchant" id="merchant">${escapeHtml(view.merchantName)}</p>
<p class="muted">${escapeHtml(t(lang, 'checkout.amount'))}</p>
<p class="amount" id="amount">${escapeHtml(amount)}</p>
<p class="desc" id="description">${escapeHtml(view.description)}</p>
<div class="row"><span>${escapeHtml(t(lang, 'checkout.reference'))}</span><span>${escapeHtml(view.sourceReferenceNumber)}</span></div>
<section class="timed" id="timed" aria-labelledby="timed-label">
<p class="muted" id="timed-label">${escapeHtml(t(lang, 'checkout.timedAccount'))}</p>
<strong class="tan" id="timed-account">${escapeHtml(view.timedAccountNumber)}</strong>
<p class="muted">${escapeHtml(t(lang, 'checkout.timedAccountHint'))}</p>
<p class="muted">${escapeHtml(t(lang, 'checkout.expiresIn'))} <span class="count" id="countdown" role="timer" data-seconds="${view.secondsLeft}">${minutesSeconds(view.secondsLeft)}</span></p>
</section>
<form id="checkout" method="post" action="/checkout/pay">
<input type="hidden" name="ptid" value="${escapeHtml(view.paymentTransactionId)}">
<input type="hidden" name="lang" value="${lang}">
<label for="connector">${escapeHtml(t(lang, 'checkout.payWith'))}</label>
<select id="connector" name="connectorId" required>
<option value="">${escapeHtml(t(lang, 'checkout.choose'))}</option>
${group(t(lang, 'checkout.wallets'), wallets)}
${group(t(lang, 'checkout.banks'), banks)}
</select>
<p class="expired" role="alert">${escapeHtml(t(lang, 'checkout.expired'))}</p>
<button class="pay" id="pay" type="submit" name="action" value="pay" data-busy-label="${escapeHtml(t(lang, 'checkout.paying'))}">${escapeHtml(t(lang, 'checkout.pay', { amount }))}</button>
<button class="cancel" id="cancel" type="submit" name="action" value="cancel" formnovalidate data-expired-label="${escapeHtml(t(lang, 'checkout.return', { merchant: view.merchantName }))}">${escapeHtml(t(lang, 'checkout.cancel', { merchant: view.merchantName }))}</button>
</form>
</main>
${languageLinks(lang, view.paymentTransactionId)}`;
  return { html: shell(lang, nonce, `${t(lang, 'checkout.title')} · ${view.merchantName}`, body, true), csp: policy(nonce, view.redirectOrigins) };
}

/** The not-found and error screens: same look, no script, no form. */
export function renderMessage(lang: Lang, title: string, text: string, ptid?: string): RenderedPage {
  const nonce = randomBytes(16).toString('base64');
  const body = `<main class="card msg"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main>
${languageLinks(lang, ptid)}`;
  return { html: shell(lang, nonce, title, body, false), csp: policy(nonce, []) };
}
