// Long e-mail addresses, references and URLs wrap at their seams (issue 27): Breakable puts a <wbr>
// after each @ . - _ / and escapes the text like any other; the browser test (layout.browser.test.ts)
// checks that no page then grows wider than a phone.
import { describe, expect, it } from 'vitest';
import { render } from '../../../src/lib/html/jsx.ts';
import { Breakable } from '../../../src/modules/console/kit/display.tsx';

describe('Breakable', () => {
  it('offers a break after @ . - _ / and nowhere else', () => {
    expect(render(Breakable({ text: 'tiyamike.banda_ops@very-long.example.mw/x' }))).toBe('tiyamike.<wbr>banda_<wbr>ops@<wbr>very-<wbr>long.<wbr>example.<wbr>mw/<wbr>x');
    expect(render(Breakable({ text: 'CWPW3ZPU5K0W' }))).toBe('CWPW3ZPU5K0W');
    expect(render(Breakable({ text: '' }))).toBe('');
  });

  it('escapes what it is given', () => {
    expect(render(Breakable({ text: '<img src=x onerror=alert(1)>@x.mw' }))).toBe('&lt;img src=x onerror=alert(1)&gt;@<wbr>x.<wbr>mw');
  });
});
