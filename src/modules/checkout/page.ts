// The checkout page as one self-contained HTML document: inline CSS and JS under a per-response
// nonce, no external asset of any kind (no fonts, images, CDN), so the page works offline from
// everything but this service and its Content-Security-Policy can be `default-src 'none'`.
// Laid out for a phone first (a single column, 375 px wide and up), in English or Chichewa.
import { BASE_STYLE, escapeHtml, htmlDocument, languageNav, newNonce, pagePolicy, type RenderedPage } from '../../http/html.ts';
import { t, type Lang } from '../../http/i18n.ts';
import { formatMajor } from '../../lib/money.ts';
import type { CheckoutView } from './service.ts';

/** The checkout's own rules, after BASE_STYLE. */
const STYLE = BASE_STYLE + `
.merchant{font-size:20px;font-weight:700;margin:2px 0 12px;overflow-wrap:anywhere}
.amount{font-size:32px;font-weight:800;margin:2px 0 4px;letter-spacing:-.01em}
.desc{margin:0 0 12px;overflow-wrap:anywhere}
.row{display:flex;justify-content:space-between;gap:12px;font-size:14px;padding:8px 0;border-top:1px solid #e6ebf0}
.row span:last-child{font-weight:600;text-align:right;overflow-wrap:anywhere}
.timed{margin:14px 0 16px;padding:14px;border-radius:12px;background:#e9f6f1;border:1px solid #bfe3d4}
.tan{display:block;font:700 28px/1.2 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.08em;margin:4px 0}
.count{font-weight:700;font-variant-numeric:tabular-nums}
.timed.late{background:#fdecea;border-color:#f5c2bd}
select{width:100%;font:inherit;padding:12px;border:1px solid #b8c4cf;border-radius:10px;background:#fff;color:inherit;min-height:48px}
select:focus,button:focus{outline:3px solid #7cc4ad;outline-offset:2px}
.pay{display:block;width:100%;margin-top:14px;font:inherit;font-weight:700;font-size:18px;padding:14px;border:0;border-radius:12px;background:#0b7a5f;color:#fff;min-height:52px;cursor:pointer}
.pay[disabled]{background:#9aa8b3;cursor:not-allowed}
.cancel{display:block;width:100%;margin-top:10px;font:inherit;font-size:15px;padding:10px;border:0;background:none;color:#23527c;text-decoration:underline;cursor:pointer}
.expired{display:none;margin:12px 0 0;color:#a12a1d;font-weight:600}
.waiting{margin:14px 0 0;font-weight:600;color:#0b5f4a}
.badge.live{background:#e9f6f1;color:#0b5f4a;border-color:#bfe3d4}
.is-expired .waiting{display:none}
.is-expired .expired{display:block}
`;

/** How often the open page asks whether its timed account has been paid. */
export const STATUS_POLL_MS = 2000;

const SCRIPT = `
(function () {
  var POLL_MS = ${STATUS_POLL_MS};
  var form = document.getElementById('checkout');
  var count = document.getElementById('countdown');
  var pay = document.getElementById('pay');
  // Absent in production, where the customer pays from their own bank or wallet app.
  var select = document.getElementById('connector');
  var timed = document.getElementById('timed');
  var ptid = form.querySelector('input[name=ptid]').value;
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
      if (pay) pay.disabled = true;
      if (select) select.disabled = true;
      var back = document.getElementById('cancel');
      back.textContent = back.getAttribute('data-expired-label');
    }
  }
  tick();
  timer = setInterval(tick, 250);
  // However the timed account is paid (here, from a banking app, through addFakeTransaction), the
  // customer is sent on to the merchant's success URL without pressing anything.
  var leaving = false;
  function poll() {
    if (leaving) return;
    fetch('/checkout/status?ptid=' + encodeURIComponent(ptid), { cache: 'no-store', credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) {
        if (s && s.status === 'paid' && s.location) { leaving = true; window.location.replace(s.location); }
        else if (!s || s.status === 'open') setTimeout(poll, POLL_MS);
      }, function () { setTimeout(poll, POLL_MS * 2); });
  }
  setTimeout(poll, POLL_MS);
  var sent = false;
  form.addEventListener('submit', function (event) {
    // One submission per page: a double tap must not send a second Pay.
    if (sent) { event.preventDefault(); return; }
    sent = true;
    var by = event.submitter;
    if (pay && (!by || by === pay)) { pay.textContent = pay.getAttribute('data-busy-label'); pay.setAttribute('aria-busy', 'true'); }
  });
})();
`;

function shell(lang: Lang, nonce: string, title: string, body: string, options: { withScript: boolean; sandbox: boolean }): string {
  const inner = `<div class="wrap">
<div class="top"><span class="brand">${escapeHtml(t(lang, 'checkout.title'))}</span><span class="badge${options.sandbox ? '' : ' live'}">${escapeHtml(t(lang, options.sandbox ? 'checkout.sandbox' : 'checkout.live'))}</span></div>
${body}
</div>`;
  return htmlDocument({ lang, nonce, title, style: STYLE, body: inner, script: options.withScript ? SCRIPT : undefined });
}

function languageLinks(lang: Lang, ptid: string | undefined): string {
  return languageNav(lang, t(lang, 'checkout.language'), (code) => `/checkout/pay?${ptid ? `ptid=${encodeURIComponent(ptid)}&` : ''}lang=${code}`);
}

function minutesSeconds(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** Sandbox: the customer picks a wallet or bank and presses Pay; the service simulates the payment. */
function simulatedPay(lang: Lang, amount: string, options: string): string {
  return `<label for="connector">${escapeHtml(t(lang, 'checkout.payWith'))}</label>
<select id="connector" name="connectorId" required>
<option value="">${escapeHtml(t(lang, 'checkout.choose'))}</option>
${options}
</select>
<p class="expired" role="alert">${escapeHtml(t(lang, 'checkout.expired'))}</p>
<button class="pay" id="pay" type="submit" name="action" value="pay" data-busy-label="${escapeHtml(t(lang, 'checkout.paying'))}">${escapeHtml(t(lang, 'checkout.pay', { amount }))}</button>`;
}

/** Production: nothing here moves money; the customer pays from their own app and the page waits. */
function awaitPayment(lang: Lang, amount: string): string {
  return `<p id="pay-from-app">${escapeHtml(t(lang, 'checkout.payFromApp', { amount }))}</p>
<p class="waiting" id="waiting" role="status" aria-live="polite">${escapeHtml(t(lang, 'checkout.waiting'))}</p>
<p class="expired" role="alert">${escapeHtml(t(lang, 'checkout.expired'))}</p>`;
}

export function renderCheckout(lang: Lang, view: CheckoutView): RenderedPage {
  const nonce = newNonce();
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
${view.simulatedPayment ? simulatedPay(lang, amount, group(t(lang, 'checkout.wallets'), wallets) + group(t(lang, 'checkout.banks'), banks)) : awaitPayment(lang, amount)}
<button class="cancel" id="cancel" type="submit" name="action" value="cancel" formnovalidate data-expired-label="${escapeHtml(t(lang, 'checkout.return', { merchant: view.merchantName }))}">${escapeHtml(t(lang, 'checkout.cancel', { merchant: view.merchantName }))}</button>
</form>
</main>
${languageLinks(lang, view.paymentTransactionId)}`;
  // The form posts here, and the 303 answer sends the browser on to the merchant's URLs.
  // connect-src: the page asks this service (only) whether the timed account has been paid.
  return {
    html: shell(lang, nonce, `${t(lang, 'checkout.title')} · ${view.merchantName}`, body, { withScript: true, sandbox: view.simulatedPayment }),
    csp: `${pagePolicy(nonce, view.redirectOrigins)}; connect-src 'self'`,
  };
}

/** The not-found and error screens: same look, no script, no form. */
export function renderMessage(lang: Lang, title: string, text: string, ptid: string | undefined, sandbox: boolean): RenderedPage {
  const nonce = newNonce();
  const body = `<main class="card msg"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main>
${languageLinks(lang, ptid)}`;
  return { html: shell(lang, nonce, title, body, { withScript: false, sandbox }), csp: pagePolicy(nonce) };
}
