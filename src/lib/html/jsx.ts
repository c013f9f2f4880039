// A small JSX runtime that renders to strings, for the server-rendered pages of the console
// (classic runtime: tsconfig "jsxFactory": "h", "jsxFragmentFactory": "Fragment"; every .tsx
// imports { h, Fragment } from here). It escapes by default: every string or number child and
// every attribute value is escaped, and the only way to emit markup as it is, is raw(), which
// test/console/kit/escaping.test.ts allows in a short list of files only. A beneficiary named
// `<img src=x onerror=alert(1)>` is therefore text wherever a page shows it.
//
// What the Content-Security-Policy of the console forbids, the runtime refuses to produce, with a
// thrown Error (a programming mistake, found by the first test that renders the page): inline
// event handlers (on* attributes) and style attributes, and URL attributes (href, src, action, …)
// that are neither relative nor http(s) (javascript:, data:, vbscript: …). Inline <script> and
// <style> bodies are refused too: code and styles are files served under /console/assets.

/** Markup that is already safe: rendered elements, and what raw() was given. */
export class SafeHtml {
  readonly html: string;
  constructor(html: string) {
    this.html = html;
  }
  toString(): string {
    return this.html;
  }
}

/** What may appear as a child: text and numbers (escaped), rendered markup, nothing, or lists of these. */
export type Child = SafeHtml | string | number | boolean | null | undefined | readonly Child[];

export type AttributeValue = string | number | boolean | null | undefined;

/** A function component: props in, markup out. */
export type Component<P = Record<string, unknown>> = (props: P & { children?: Child }) => SafeHtml;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text → HTML text or attribute value. */
export function escapeText(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

/**
 * Markup emitted as it is. Only for markup built from escaped parts (an SVG chart) or a
 * constant: test/console/kit/escaping.test.ts fails on a raw( call outside its allowlist.
 */
export function raw(html: string): SafeHtml {
  return new SafeHtml(html);
}

/** Elements that have no end tag and no children. */
const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
/** Their content would be code or CSS, not text: the CSP allows neither inline. */
const NO_CONTENT_ELEMENTS = new Set(['script', 'style']);
/** Attributes whose value is a URL the browser follows or loads. */
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'poster', 'cite', 'xlink:href', 'hx-get', 'hx-post', 'hx-put', 'hx-patch', 'hx-delete', 'hx-push-url', 'hx-replace-url']);

const TAG_NAME = /^[a-zA-Z][a-zA-Z0-9-]*$/;
const ATTRIBUTE_NAME = /^[a-zA-Z_:][a-zA-Z0-9_.:-]*$/;
/** A scheme at the start of a URL, as a browser reads it (after dropping controls and spaces). */
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

/** Whether `url` is relative or http(s): browsers ignore tabs, newlines and leading controls in a scheme. */
export function isSafeUrl(url: string): boolean {
  // eslint-disable-next-line no-control-regex
  const cleaned = url.replace(/[\u0000-\u0020\u007f]/g, '');
  const scheme = SCHEME.exec(cleaned)?.[1]?.toLowerCase();
  return scheme === undefined || scheme === 'http' || scheme === 'https';
}

function attribute(tag: string, name: string, value: unknown): string {
  if (!ATTRIBUTE_NAME.test(name)) throw new Error(`<${tag}>: "${name}" is not an attribute name`);
  const lower = name.toLowerCase();
  if (lower.startsWith('on')) throw new Error(`<${tag}>: event handler attribute ${name} refused (the CSP forbids inline handlers: listen from a script file)`);
  if (lower === 'style') throw new Error(`<${tag}>: style attribute refused (the CSP forbids inline styles: use a class of console.css)`);
  if (value === null || value === undefined || value === false) return '';
  if (value === true) return ` ${name}`;
  if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`<${tag}>: attribute ${name} must be text, a number or a boolean, got ${typeof value}`);
  const text = String(value);
  if (URL_ATTRIBUTES.has(lower) && !isSafeUrl(text)) throw new Error(`<${tag}>: ${name} must be a relative or http(s) URL, got "${text.slice(0, 60)}"`);
  return ` ${name}="${escapeText(text)}"`;
}

function renderChild(child: Child, out: string[]): void {
  if (child === null || child === undefined || child === false || child === true) return;
  if (child instanceof SafeHtml) out.push(child.html);
  else if (typeof child === 'string') out.push(escapeText(child));
  else if (typeof child === 'number') out.push(escapeText(String(child)));
  else if (Array.isArray(child)) for (const c of child) renderChild(c, out);
  else throw new Error(`cannot render a ${Object.prototype.toString.call(child)} as a child: format it as text first`);
}

/** Children → escaped markup. */
export function render(node: Child): string {
  const out: string[] = [];
  renderChild(node, out);
  return out.join('');
}

function hasContent(children: readonly Child[]): boolean {
  return children.some((c) => (Array.isArray(c) ? hasContent(c) : c !== null && c !== undefined && c !== false && c !== true && c !== ''));
}

/** The JSX factory: an element (tag name) or a component's output. */
export function h(tag: string | Component<never>, props: Record<string, unknown> | null, ...children: Child[]): SafeHtml {
  if (typeof tag === 'function') {
    const given = props ?? {};
    const kids = children.length === 0 ? given.children : children.length === 1 ? children[0] : children;
    return (tag as Component)({ ...given, children: kids as Child });
  }
  if (!TAG_NAME.test(tag)) throw new Error(`"${tag}" is not a tag name`);
  const lowerTag = tag.toLowerCase();
  let attributes = '';
  for (const [name, value] of Object.entries(props ?? {})) {
    if (name === 'children') continue;
    attributes += attribute(tag, name, value);
  }
  if (VOID_ELEMENTS.has(lowerTag)) {
    if (hasContent(children)) throw new Error(`<${tag}> is a void element: it takes no children`);
    return new SafeHtml(`<${tag}${attributes}>`);
  }
  if (NO_CONTENT_ELEMENTS.has(lowerTag) && hasContent(children)) throw new Error(`<${tag}> with content refused: serve it as a file under /console/assets`);
  return new SafeHtml(`<${tag}${attributes}>${render(children)}</${tag}>`);
}

/** <>…</>: its children, side by side. */
export function Fragment(props: { children?: Child } | null): SafeHtml {
  return new SafeHtml(render(props?.children));
}

/** A whole page: the doctype, then the <html> element. */
export function renderDocument(root: SafeHtml): string {
  return `<!doctype html>\n${root.html}\n`;
}

/** Attributes any element takes; those the runtime refuses are `never`, so the compiler refuses them first. */
interface HtmlAttributes {
  [name: string]: AttributeValue | Child;
  style?: never;
  children?: Child;
}
type NoHandlers = { [K in `on${string}`]?: never };

// TypeScript looks the JSX types up on the factory (h.JSX) before the global namespace.
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace h {
  namespace JSX {
    type Element = SafeHtml;
    interface ElementChildrenAttribute {
      children: unknown;
    }
    interface IntrinsicAttributes {
      children?: Child;
    }
    type IntrinsicElements = Record<string, HtmlAttributes & NoHandlers>;
  }
}
