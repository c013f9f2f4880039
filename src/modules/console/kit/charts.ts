// Charts for the console as server-rendered SVG strings: no script, no external asset, nothing for
// the CSP to allow. Pure functions: the same input gives the same bytes (the tests compare them).
// Accessible as one image: role="img" named by its <title> (aria-labelledby) and described by its
// <desc>; the page puts a table with the same figures beside it for screen readers. Every text that
// comes from data (title, labels, series names, formatted values) goes through escapeHtml, so the
// page can wrap the result with raw() (this file is on test/console/kit/escaping.test.ts's allowlist).
// No style attributes (the CSP forbids inline styles): class names for the stylesheet, and
// presentation attributes (fill, stroke, font-size, text-anchor) as defaults it may override.
// Sized by its viewBox only: it scales to its container, from a 375 px phone to a desktop.
import { escapeHtml } from '../../../http/html.ts';

/**
 * The drawing's coordinate system: narrow enough that its 13-unit text is still about 11 px on a
 * 375 px phone (the chart scales to its container's width); a stylesheet caps it on desktops.
 */
const WIDTH = 420;
const HEIGHT = 240;
const FONT_SIZE = 13;
/** About the width of one character of the axis' text, for spacing the category labels. */
const CHAR_WIDTH = FONT_SIZE * 0.6;
const MARGIN = { top: 24, right: 10, bottom: 36, left: 52 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;
/** Horizontal gridlines (and value ticks) besides zero, about. */
const TICKS = 4;
/** At most this many category labels under the x axis, fewer when they are long; the others are skipped (every n-th shown). */
const MAX_X_LABELS = 8;
/** Room kept between two category labels. */
const LABEL_GAP = 10;
/** Category labels longer than this are cut (with …) so that neighbours do not overlap. */
const MAX_LABEL_CHARS = 12;
/** Legend entries (line charts): one line of them above the plot. */
const LEGEND_HEIGHT = 18;

export interface ChartPoint {
  label: string;
  value: number;
}

interface ChartBase {
  /** Unique on the page: the ids of the chart's <title> and <desc> are made from it. */
  id: string;
  title: string;
  /** One sentence saying what the chart shows (its <desc>). */
  description?: string;
  /** Formats values for the tooltips; default: compact (1.5k, 2.3M). */
  formatValue?: (value: number) => string;
  /** Formats the value axis' ticks, which have room for about 6 characters; default: compact (1.5k, 2.3M). */
  formatTick?: (value: number) => string;
  /** Shown when there is nothing to draw; default "No data". */
  emptyText?: string;
}

export interface BarChartOptions extends ChartBase {
  data: readonly ChartPoint[];
}

export interface LineSeries {
  name: string;
  /** One value per label, in the labels' order. */
  values: readonly number[];
}

export interface LineChartOptions extends ChartBase {
  /** The x axis' categories (days, usually). */
  labels: readonly string[];
  series: readonly LineSeries[];
}

const ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** A coordinate with at most 2 decimals, written without exponent or negative zero. */
function n(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/** A value that can be drawn: anything else (NaN, ±Infinity) counts as 0. */
const finite = (value: number) => (Number.isFinite(value) ? value : 0);

const SUFFIXES: Array<[number, string]> = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** 1234 → "1.2k", 2500000 → "2.5M", 0.5 → "0.5"; 10^15 and beyond in exponent form ("1.0e15"). */
export function compactNumber(value: number): string {
  const v = finite(value);
  const abs = Math.abs(v);
  if (abs >= 1e15) return v.toExponential(1).replace('e+', 'e');
  for (const [size, suffix] of SUFFIXES) {
    if (abs >= size) return `${trim((v / size).toFixed(1))}${suffix}`;
  }
  return trim(v.toFixed(2));
}

const trim = (text: string) => (text.includes('.') ? text.replace(/\.?0+$/, '') : text);

/** A "nice" step (1, 2 or 5 × 10^k) that splits `span` into about TICKS parts. */
function niceStep(span: number): number {
  const raw = span / TICKS;
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
}

interface Scale {
  min: number;
  max: number;
  ticks: number[];
  y: (value: number) => number;
}

/** The y scale: always includes zero, rounded out to nice ticks. */
function yScale(values: readonly number[]): Scale {
  let min = Math.min(0, ...values);
  let max = Math.max(0, ...values);
  if (min === max) max = 1;
  const step = niceStep(max - min);
  min = Math.floor(min / step) * step;
  max = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  // Counted, not accumulated: a float step added repeatedly drifts.
  const count = Math.round((max - min) / step);
  for (let i = 0; i <= count; i++) ticks.push(min + i * step);
  const y = (value: number) => MARGIN.top + PLOT_HEIGHT - ((value - min) / (max - min)) * PLOT_HEIGHT;
  return { min, max, ticks, y };
}

function shortLabel(label: string): string {
  const chars = [...label];
  return chars.length > MAX_LABEL_CHARS ? `${chars.slice(0, MAX_LABEL_CHARS - 1).join('')}…` : label;
}

function open(kind: 'bar' | 'line', o: ChartBase): string {
  if (!ID.test(o.id)) throw new Error(`chart id "${o.id}" must match ${ID}`);
  const described = o.description ? ` aria-describedby="${o.id}-desc"` : '';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" class="chart chart-${kind}" role="img" aria-labelledby="${o.id}-title"${described} font-size="${FONT_SIZE}">` +
    `<title id="${o.id}-title">${escapeHtml(o.title)}</title>` +
    (o.description ? `<desc id="${o.id}-desc">${escapeHtml(o.description)}</desc>` : '')
  );
}

function empty(kind: 'bar' | 'line', o: ChartBase): string {
  return `${open(kind, o)}<text class="chart-empty" x="${n(WIDTH / 2)}" y="${n(HEIGHT / 2)}" text-anchor="middle" fill="currentColor">${escapeHtml(o.emptyText ?? 'No data')}</text></svg>`;
}

/** Gridlines with their value labels, and the zero line. */
function yAxis(scale: Scale, format: (value: number) => string): string {
  const lines = scale.ticks.map((tick) => {
    const y = n(scale.y(tick));
    return (
      `<line class="chart-grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y}" y2="${y}" stroke="currentColor" stroke-opacity="0.15"/>` +
      `<text class="chart-tick" x="${MARGIN.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle" fill="currentColor">${escapeHtml(format(tick))}</text>`
    );
  });
  const zero = n(scale.y(0));
  return `<g class="chart-axis chart-axis-y">${lines.join('')}<line class="chart-zero" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${zero}" y2="${zero}" stroke="currentColor"/></g>`;
}

/** Category labels under the plot at `x(i)`, every `step`-th one so that they never crowd. */
function xLabels(labels: readonly string[], x: (i: number) => number): string {
  const longest = Math.min(MAX_LABEL_CHARS, Math.max(...labels.map((label) => [...label].length)));
  const fitting = Math.max(1, Math.min(MAX_X_LABELS, Math.floor(PLOT_WIDTH / (longest * CHAR_WIDTH + LABEL_GAP))));
  const step = Math.max(1, Math.ceil(labels.length / fitting));
  const shown = labels.flatMap((label, i) =>
    i % step === 0 ? [`<text class="chart-label" x="${n(x(i))}" y="${HEIGHT - MARGIN.bottom + 17}" text-anchor="middle" fill="currentColor">${escapeHtml(shortLabel(label))}</text>`] : [],
  );
  return `<g class="chart-axis chart-axis-x">${shown.join('')}</g>`;
}

/**
 * Vertical bars, one per point, from zero (a negative value hangs below the zero line). Each bar
 * carries its label and formatted value as a tooltip (<title>).
 */
export function barChart(o: BarChartOptions): string {
  if (o.data.length === 0) return empty('bar', o);
  const format = o.formatValue ?? compactNumber;
  const values = o.data.map((d) => finite(d.value));
  const scale = yScale(values);
  const slot = PLOT_WIDTH / o.data.length;
  // A gap of a fifth of the slot between bars; never thinner than a hairline.
  const barWidth = Math.max(0.5, slot * 0.8);
  const x = (i: number) => MARGIN.left + slot * i + slot / 2;
  const zero = scale.y(0);
  const bars = o.data.map((d, i) => {
    const top = scale.y(Math.max(0, values[i]));
    const bottom = scale.y(Math.min(0, values[i]));
    return (
      `<rect class="chart-bar-value" x="${n(x(i) - barWidth / 2)}" y="${n(top)}" width="${n(barWidth)}" height="${n(Math.max(0, bottom - top))}" fill="currentColor">` +
      `<title>${escapeHtml(`${d.label}: ${format(values[i])}`)}</title></rect>`
    );
  });
  return `${open('bar', o)}${yAxis(scale, o.formatTick ?? compactNumber)}<g class="chart-bars" data-zero="${n(zero)}">${bars.join('')}</g>${xLabels(o.data.map((d) => d.label), x)}</svg>`;
}

/**
 * One line per series across the labels, with a dot on each point (so a single point shows), and a
 * legend above the plot naming each series' class (chart-series-0, -1, …) for the stylesheet's colours.
 */
export function lineChart(o: LineChartOptions): string {
  const series = o.series.filter((s) => s.values.length > 0);
  if (o.labels.length === 0 || series.length === 0) return empty('line', o);
  const format = o.formatValue ?? compactNumber;
  const points = series.map((s) => o.labels.map((_label, i) => finite(s.values[i] ?? 0)));
  const scale = yScale(points.flat());
  const slot = PLOT_WIDTH / o.labels.length;
  const x = (i: number) => MARGIN.left + slot * i + slot / 2;
  const lines = series.map((s, k) => {
    const path = points[k].map((v, i) => `${i === 0 ? 'M' : 'L'}${n(x(i))} ${n(scale.y(v))}`).join(' ');
    const dots = points[k].map(
      (v, i) =>
        `<circle class="chart-point" cx="${n(x(i))}" cy="${n(scale.y(v))}" r="3" fill="currentColor"><title>${escapeHtml(`${s.name}, ${o.labels[i]}: ${format(v)}`)}</title></circle>`,
    );
    return `<g class="chart-series chart-series-${k}"><path class="chart-line" d="${path}" fill="none" stroke="currentColor" stroke-width="2"/>${dots.join('')}</g>`;
  });
  const legend = series.map((s, k) => {
    const left = MARGIN.left + k * (PLOT_WIDTH / series.length);
    return (
      `<g class="chart-series chart-series-${k}"><rect class="chart-swatch" x="${n(left)}" y="${n(MARGIN.top - LEGEND_HEIGHT + 6)}" width="10" height="10" fill="currentColor"/>` +
      `<text class="chart-legend-label" x="${n(left + 14)}" y="${n(MARGIN.top - LEGEND_HEIGHT + 15)}" fill="currentColor">${escapeHtml(shortLabel(s.name))}</text></g>`
    );
  });
  return `${open('line', o)}<g class="chart-legend">${legend.join('')}</g>${yAxis(scale, o.formatTick ?? compactNumber)}${lines.join('')}${xLabels(o.labels, x)}</svg>`;
}
