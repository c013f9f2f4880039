// The console's SVG charts (src/modules/console/kit/charts.ts): accessible (role="img", a <title> that
// names it through aria-labelledby, a <desc>), every text escaped, no inline style, sized by viewBox
// only, deterministic; empty data, one point, large and negative numbers, and hostile labels.
import { describe, expect, it } from 'vitest';
import { barChart, compactNumber, lineChart } from '../../../src/modules/console/kit/charts.ts';

const SCRIPT = '<script>alert(1)</script>';

/** Every number of every coordinate attribute. */
function coordinates(svg: string): number[] {
  return [...svg.matchAll(/\s(?:x|y|x1|x2|y1|y2|cx|cy|width|height|r)="([^"]*)"/g)].map((m) => Number(m[1]));
}

function pathNumbers(svg: string): number[] {
  return [...svg.matchAll(/\sd="([^"]*)"/g)].flatMap((m) => m[1].split(/[ML ]+/).filter(Boolean).map(Number));
}

function wellFormed(svg: string) {
  const viewBox = /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 (\d+) (\d+)"/.exec(svg);
  expect(viewBox).not.toBeNull();
  const width = Number(viewBox![1]);
  expect(svg.endsWith('</svg>')).toBe(true);
  expect(svg).toMatch(/role="img"/);
  expect(svg).not.toMatch(/style=/i);
  expect(svg).not.toMatch(/<script/i);
  // No event handler attribute in any tag (text between tags may mention one, escaped).
  expect(svg.replace(/>[^<]*</g, '><')).not.toMatch(/\son\w+=/i);
  // Sized by its viewBox: no fixed width or height on the <svg> itself.
  expect(svg.slice(0, svg.indexOf('>'))).not.toMatch(/\s(width|height)=/);
  for (const n of [...coordinates(svg), ...pathNumbers(svg)]) {
    expect(Number.isFinite(n), `coordinate ${n}`).toBe(true);
    expect(n).toBeGreaterThanOrEqual(0);
    expect(n).toBeLessThanOrEqual(width);
  }
  expect(svg).not.toMatch(/NaN|Infinity|undefined|e\+/);
}

const week = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

describe('barChart', () => {
  it('is an accessible image named by its title and described by its desc', () => {
    const svg = barChart({ id: 'collections-30d', title: 'Collections, last 30 days', description: 'Amount collected per day', data: [{ label: 'Mon', value: 3 }] });
    wellFormed(svg);
    expect(svg).toContain('aria-labelledby="collections-30d-title"');
    expect(svg).toContain('aria-describedby="collections-30d-desc"');
    expect(svg).toContain('<title id="collections-30d-title">Collections, last 30 days</title>');
    expect(svg).toContain('<desc id="collections-30d-desc">Amount collected per day</desc>');
    expect(svg).toContain('class="chart chart-bar"');
  });

  it('escapes every text: title, description, labels, formatted values, empty text', () => {
    const svg = barChart({
      id: 'x',
      title: SCRIPT,
      description: '"quoted" & <b>bold</b>',
      data: [{ label: SCRIPT, value: 5 }, { label: `'><img src=x onerror=alert(1)>`, value: 2 }],
      formatValue: (v) => `<i>${v}</i>`,
      formatTick: (v) => `<u>${v}</u>`,
    });
    wellFormed(svg);
    expect(svg).not.toContain('<script>');
    expect(svg).not.toContain('<img');
    expect(svg).not.toContain('<i>');
    expect(svg).not.toContain('<u>');
    expect(svg).toContain('&lt;u&gt;0&lt;/u&gt;');
    expect(svg).not.toContain('<b>');
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(svg).toContain('&quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt;');
    expect(svg).toContain('&#39;&gt;&lt;img');
    expect(barChart({ id: 'e', title: 't', data: [], emptyText: SCRIPT })).toContain('&lt;script&gt;');
  });

  it('draws one bar per point, taller for larger values, all from the zero line', () => {
    const svg = barChart({ id: 'w', title: 'Week', data: week.map((label, i) => ({ label, value: i * 10 })) });
    wellFormed(svg);
    const bars = [...svg.matchAll(/<rect class="chart-bar-value" x="([^"]+)" y="([^"]+)" width="([^"]+)" height="([^"]+)"/g)].map((m) => m.slice(1).map(Number));
    expect(bars).toHaveLength(7);
    const heights = bars.map((b) => b[3]);
    expect([...heights].sort((p, q) => p - q)).toEqual(heights);
    expect(heights[0]).toBe(0);
    // Every bar ends on the zero line.
    const zero = Number(/data-zero="([^"]+)"/.exec(svg)![1]);
    for (const [, y, , h] of bars) expect(Math.round((y + h) * 100) / 100).toBe(zero);
    // Tooltips carry label and value.
    expect(svg).toContain('<title>Sun: 60</title>');
  });

  it('shows a text instead of axes for empty data', () => {
    const svg = barChart({ id: 'none', title: 'Nothing yet', data: [] });
    wellFormed(svg);
    expect(svg).toContain('<text class="chart-empty"');
    expect(svg).toContain('>No data</text>');
    expect(svg).not.toContain('<rect');
  });

  it('draws one point, zeros and negative values', () => {
    const one = barChart({ id: 'one', title: 'One', data: [{ label: 'Today', value: 42 }] });
    wellFormed(one);
    expect(one.match(/<rect /g)).toHaveLength(1);
    const zeros = barChart({ id: 'z', title: 'Zeros', data: [{ label: 'a', value: 0 }, { label: 'b', value: 0 }] });
    wellFormed(zeros);
    const negative = barChart({ id: 'n', title: 'Net', data: [{ label: 'in', value: 500 }, { label: 'out', value: -300 }] });
    wellFormed(negative);
    expect(negative).toContain('<title>out: -300</title>');
  });

  it('scales large numbers (10^15 minor units) and labels them compactly', () => {
    const svg = barChart({ id: 'big', title: 'Big', data: [{ label: 'a', value: 1e15 }, { label: 'b', value: 2.5e14 }, { label: 'c', value: Number.MAX_SAFE_INTEGER }] });
    wellFormed(svg);
    expect(svg).toContain('<title>a: 1.0e15</title>');
    expect(svg).toContain('<title>b: 250T</title>');
    // Non-finite values are drawn as zero rather than breaking the drawing.
    wellFormed(barChart({ id: 'bad', title: 'Bad', data: [{ label: 'a', value: Number.NaN }, { label: 'b', value: Infinity }] }));
  });

  it('shows at most 8 category labels, fewer when they are long, and cuts long ones', () => {
    const labelsOf = (labels: string[]) => barChart({ id: 'd', title: 'Days', data: labels.map((label, i) => ({ label, value: i })) }).match(/class="chart-label"/g)!.length;
    const short = Array.from({ length: 30 }, (_, i) => String(i + 1));
    const dates = Array.from({ length: 30 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`);
    expect(labelsOf(short)).toBe(8);
    expect(labelsOf(dates)).toBeLessThan(8);
    expect(labelsOf(dates)).toBeGreaterThanOrEqual(4);
    // Neighbouring labels never overlap: their centres are further apart than the longest label is wide.
    const svg = barChart({ id: 'd', title: 'Days', data: dates.map((label, i) => ({ label, value: i })) });
    wellFormed(svg);
    const xs = [...svg.matchAll(/class="chart-label" x="([^"]+)"/g)].map((m) => Number(m[1]));
    for (let i = 1; i < xs.length; i++) expect(xs[i] - xs[i - 1]).toBeGreaterThan(10 * 13 * 0.6);
    const long = barChart({ id: 'l', title: 'Long', data: [{ label: 'A very long connector name indeed', value: 1 }] });
    expect(long).toContain('>A very long…</text>');
    expect(long).toContain('<title>A very long connector name indeed: 1</title>');
  });

  it('is deterministic: the same input gives the same bytes', () => {
    const input = { id: 'same', title: 'Same', data: week.map((label, i) => ({ label, value: (i * 7919) % 100 })) };
    expect(barChart(input)).toBe(barChart(structuredClone(input)));
    expect(barChart({ id: 'fixed', title: 'T', data: [{ label: 'a', value: 1 }, { label: 'b', value: 3 }] })).toMatchInlineSnapshot(
      `"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 420 240" class="chart chart-bar" role="img" aria-labelledby="fixed-title" font-size="13"><title id="fixed-title">T</title><g class="chart-axis chart-axis-y"><line class="chart-grid" x1="52" x2="410" y1="204" y2="204" stroke="currentColor" stroke-opacity="0.15"/><text class="chart-tick" x="46" y="204" text-anchor="end" dominant-baseline="middle" fill="currentColor">0</text><line class="chart-grid" x1="52" x2="410" y1="144" y2="144" stroke="currentColor" stroke-opacity="0.15"/><text class="chart-tick" x="46" y="144" text-anchor="end" dominant-baseline="middle" fill="currentColor">1</text><line class="chart-grid" x1="52" x2="410" y1="84" y2="84" stroke="currentColor" stroke-opacity="0.15"/><text class="chart-tick" x="46" y="84" text-anchor="end" dominant-baseline="middle" fill="currentColor">2</text><line class="chart-grid" x1="52" x2="410" y1="24" y2="24" stroke="currentColor" stroke-opacity="0.15"/><text class="chart-tick" x="46" y="24" text-anchor="end" dominant-baseline="middle" fill="currentColor">3</text><line class="chart-zero" x1="52" x2="410" y1="204" y2="204" stroke="currentColor"/></g><g class="chart-bars" data-zero="204"><rect class="chart-bar-value" x="69.9" y="144" width="143.2" height="60" fill="currentColor"><title>a: 1</title></rect><rect class="chart-bar-value" x="248.9" y="24" width="143.2" height="180" fill="currentColor"><title>b: 3</title></rect></g><g class="chart-axis chart-axis-x"><text class="chart-label" x="141.5" y="221" text-anchor="middle" fill="currentColor">a</text><text class="chart-label" x="320.5" y="221" text-anchor="middle" fill="currentColor">b</text></g></svg>"`,
    );
  });

  it('refuses an id that could break out of its attribute', () => {
    expect(() => barChart({ id: '"><script>', title: 't', data: [] })).toThrow();
    expect(() => barChart({ id: '', title: 't', data: [] })).toThrow();
  });
});

describe('lineChart', () => {
  const labels = ['01', '02', '03', '04'];

  it('draws a line and a dot per point for each series, with a legend, all escaped', () => {
    const svg = lineChart({
      id: 'flows',
      title: 'Collections and payouts',
      labels,
      series: [
        { name: 'Collections', values: [1, 5, 3, 8] },
        { name: SCRIPT, values: [2, 2, 0, 4] },
      ],
    });
    wellFormed(svg);
    expect(svg).toContain('class="chart chart-line"');
    expect(svg.match(/<path class="chart-line"/g)).toHaveLength(2);
    expect(svg.match(/<circle /g)).toHaveLength(8);
    expect(svg).toContain('chart-series-0');
    expect(svg).toContain('chart-series-1');
    expect(svg).toContain('>Collections</text>');
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;, 04: 4');
  });

  it('handles empty data, one point and a series shorter than the labels', () => {
    expect(lineChart({ id: 'e1', title: 'E', labels: [], series: [{ name: 'a', values: [] }] })).toContain('chart-empty');
    expect(lineChart({ id: 'e2', title: 'E', labels, series: [] })).toContain('chart-empty');
    const one = lineChart({ id: 'one', title: 'One', labels: ['Today'], series: [{ name: 'a', values: [7] }] });
    wellFormed(one);
    expect(one.match(/<circle /g)).toHaveLength(1);
    expect(one).toMatch(/d="M[\d.]+ [\d.]+"/);
    const short = lineChart({ id: 's', title: 'Short', labels, series: [{ name: 'a', values: [1] }] });
    wellFormed(short);
    expect(short.match(/<circle /g)).toHaveLength(4);
  });

  it('scales large numbers and is deterministic', () => {
    const input = { id: 'big', title: 'Big', labels, series: [{ name: 'a', values: [0, 1e15, 5e14, 9_007_199_254_740_991] }] };
    const svg = lineChart(input);
    wellFormed(svg);
    expect(svg).toBe(lineChart(structuredClone(input)));
    expect(svg).toContain('a, 02: 1.0e15');
  });
});

describe('compactNumber', () => {
  it('writes short numbers', () => {
    expect([0, 0.5, 12, 999, 1000, 1500, 1_234_567, 2.5e9, 7e12, 1e15, -2500, Number.NaN].map(compactNumber)).toEqual([
      '0',
      '0.5',
      '12',
      '999',
      '1k',
      '1.5k',
      '1.2M',
      '2.5B',
      '7T',
      '1.0e15',
      '-2.5k',
      '0',
    ]);
  });
});
