// A chart of charts.ts as page markup. charts.ts returns SVG text whose every data-derived text
// and attribute is escaped (escapeHtml), so it is emitted as it is: this is the one page-side
// raw() call, and it takes chart options, never a string, so that nothing but charts.ts's own
// output can pass through it (test/console/kit/escaping.test.ts allows raw() in this file for that).
import { h, raw, type SafeHtml } from '../../../lib/html/jsx.ts';
import { barChart, lineChart, type BarChartOptions, type LineChartOptions } from './charts.ts';

export function BarChart(p: { options: BarChartOptions }): SafeHtml {
  return <div class="chart-box">{raw(barChart(p.options))}</div>;
}

export function LineChart(p: { options: LineChartOptions }): SafeHtml {
  return <div class="chart-box">{raw(lineChart(p.options))}</div>;
}
