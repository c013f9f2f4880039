// The console's template layer escapes by default (src/lib/html/jsx.ts): what a merchant or their
// customers typed is text wherever a page shows it, and markup the CSP would refuse (inline
// handlers and styles, javascript: URLs) cannot be produced. raw() is the only way to emit markup
// as it is: allowed in the files of RAW_ALLOWED only, each with its reason.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Fragment, h, isSafeUrl, raw, render, renderDocument, type Child } from '../../../src/lib/html/jsx.ts';
import { attributes, beneficiaryTable, card, fragment, mixedChildren } from '../../fixtures/jsx-pages.tsx';
import { ROOT } from '../../helpers.ts';

/** Files that may call raw(), relative to the repository, with why. */
const RAW_ALLOWED: Record<string, string> = {
  'src/lib/html/jsx.ts': 'the runtime itself',
  'src/modules/console/kit/charts.ts': 'SVG charts built from escaped parts (escapeHtml on every text and attribute), wrapped by the pages',
  // collections & analytics pages (P1)
  'src/modules/console/kit/chart.tsx': 'wraps charts.ts output only: its components take chart options, never a string, and call barChart/lineChart themselves',
};

const HOSTILE = '<img src=x onerror=alert(1)>';

describe('the JSX runtime', () => {
  it('renders a beneficiary named like markup as text, in children and attributes', () => {
    const html = render(beneficiaryTable([HOSTILE, `"'&`]));
    expect(html).toBe(
      '<table><tr><td title="&lt;img src=x onerror=alert(1)&gt;">&lt;img src=x onerror=alert(1)&gt;</td></tr>' +
        '<tr><td title="&quot;&#39;&amp;">&quot;&#39;&amp;</td></tr></table>',
    );
    expect(html).not.toContain('<img');
  });

  it('renders numbers, nested lists, fragments, and nothing for null, undefined and booleans', () => {
    expect(render(mixedChildren([1, [2, [3]], null, undefined, false, true, '']))).toBe('<p>123</p>');
    expect(render(mixedChildren([0]))).toBe('<p>0</p>');
    expect(render(fragment())).toBe('a<b>b</b>&lt;c&gt;');
  });

  it('writes boolean attributes by name, leaves out false, null and undefined ones, and closes void elements', () => {
    expect(render(attributes())).toBe(
      '<input type="checkbox" checked>' +
        '<details open>x</details>' +
        '<td colspan="2" aria-hidden="true" data-id="7" hx-get="/console/x?a=1&amp;b=2"></td>' +
        '<br>' +
        '<script src="/console/assets/htmx.min.js" nonce="abc"></script>',
    );
  });

  it('refuses children for void elements', () => {
    expect(() => h('img', { alt: '' }, 'text')).toThrow(/void element/);
    expect(render(h('img', { alt: '', src: '/a.png' }, null, false))).toBe('<img alt="" src="/a.png">');
  });

  it('refuses event handler attributes, whatever their case', () => {
    expect(() => h('a', { onclick: 'alert(1)' })).toThrow(/event handler attribute onclick refused/);
    expect(() => h('img', { OnError: 'alert(1)' })).toThrow(/event handler/);
    expect(() => h('body', { onload: '' })).toThrow(/event handler/);
  });

  it('refuses style attributes and inline <script> or <style> content', () => {
    expect(() => h('p', { style: 'color:red' })).toThrow(/style attribute refused/);
    expect(() => h('p', { STYLE: 'x' })).toThrow(/style attribute refused/);
    expect(() => h('script', null, 'alert(1)')).toThrow(/content refused/);
    expect(() => h('style', null, 'p{}')).toThrow(/content refused/);
  });

  it('refuses javascript:, data: and other non-http(s) URLs in URL attributes, even disguised', () => {
    for (const url of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', 'java\tscript:alert(1)', '\u0001javascript:x', 'data:text/html,<b>', 'vbscript:x']) {
      expect(() => h('a', { href: url }), url).toThrow(/relative or http\(s\) URL/);
      expect(isSafeUrl(url), url).toBe(false);
    }
    expect(() => h('form', { action: 'javascript:x' })).toThrow(/action must be/);
    expect(() => h('img', { src: 'data:image/png;base64,AAAA' })).toThrow(/src must be/);
    expect(() => h('button', { 'hx-post': 'javascript:x' })).toThrow(/hx-post must be/);
    for (const url of ['/console', 'sign-in?next=%2Fconsole', '#main', 'https://example.mw/x', 'http://localhost:8080/', '?page=2', '//pay.example.mw/x']) {
      expect(isSafeUrl(url), url).toBe(true);
    }
    expect(render(h('a', { href: '/console/payouts?q=a&b' }, 'x'))).toBe('<a href="/console/payouts?q=a&amp;b">x</a>');
  });

  it('refuses names that are not tag or attribute names, and values that are not text', () => {
    expect(() => h('a b', null)).toThrow(/not a tag name/);
    expect(() => h('p', { 'x"y': '1' })).toThrow(/not an attribute name/);
    expect(() => h('p', { title: { toString: () => '<b>' } })).toThrow(/must be text/);
    expect(() => render(h('p', null, new Date() as unknown as Child))).toThrow(/cannot render/);
  });

  it('passes component children through, and raw() markup as it is', () => {
    expect(render(card())).toBe('<section><h2>&lt;T&gt;</h2><svg></svg>body</section>');
    expect(renderDocument(h('html', { lang: 'en' }))).toBe('<!doctype html>\n<html lang="en"></html>\n');
    expect(render(h(Fragment, null, 'a', raw('<i></i>')))).toBe('a<i></i>');
  });
});

/** Every .ts and .tsx file under src/, relative to the repository. */
function sourceFiles(dir = path.join(ROOT, 'src')): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [path.relative(ROOT, full)] : [];
  });
}

describe('raw() outside the allowlist', () => {
  it('appears in no source file but the allowed ones', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    const offenders = files
      .filter((file) => !(file in RAW_ALLOWED))
      .flatMap((file) =>
        fs
          .readFileSync(path.join(ROOT, file), 'utf8')
          .split('\n')
          .flatMap((line, i) => (/(^|[^\w$.])raw\s*\(/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(offenders, `raw() emits markup unescaped; render text through JSX instead, or add the file to RAW_ALLOWED with a reason:\n${offenders.join('\n')}`).toEqual([]);
  });

  it('finds a call the way a page would write it', () => {
    const pattern = /(^|[^\w$.])raw\s*\(/;
    expect(pattern.test("{raw(svg)}")).toBe(true);
    expect(pattern.test("const x = raw (html);")).toBe(true);
    expect(pattern.test("String.raw`x` + withRaw(1) + request.raw(")).toBe(false);
  });
});
