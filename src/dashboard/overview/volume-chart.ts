import { html, type SafeHtml } from '../../web/html.ts';
import { moneyText } from '../../shared/money.ts';
import { table } from '../layout.ts';

export interface DayVolume {
  /** `YYYY-MM-DD` in the gateway's time zone. */
  date: string;
  volumeMinor: number;
}

/**
 * The bars' drawing space. The SVG is stretched to the plot's box (`preserveAspectRatio="none"`),
 * 180 px high in the stylesheet, so a unit up is a pixel: the gridlines meet the middles of the
 * axis labels beside them, whose lines are 16 px high.
 */
const WIDTH = 720;
const HEIGHT = 180;
const TOP = 8;
const BASELINE = HEIGHT - 8;

const dayMonth = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** `2026-11-28` as an axis says it: `28 Nov`. */
function shortDate(date: string): string {
  return dayMonth.format(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))));
}

/**
 * Daily volume as bars, drawn here as inline SVG: no script, nothing fetched, styled by the
 * stylesheet's classes (the CSP allows no inline style). The axes' labels are HTML beside the
 * drawing rather than SVG text, which would shrink with it: they stay the page's size (13 px) on a
 * 360 px phone. Screen readers get the figure's title and a one-line summary; the numbers
 * themselves are in the table under "Show the numbers". Days without any successful payment draw
 * no empty axes: the figure says why (`whyEmpty`) instead.
 */
export function volumeChart(days: DayVolume[], currency: string, whyEmpty: string): SafeHtml {
  const highest = Math.max(0, ...days.map((day) => day.volumeMinor));
  if (highest === 0)
    return html`<figure class="chart chart-empty"><figcaption id="volume-chart-summary">${whyEmpty}</figcaption></figure>`;
  const total = days.reduce((sum, day) => sum + day.volumeMinor, 0);
  const plotHeight = BASELINE - TOP;
  const slot = WIDTH / days.length;
  const bars = days.map((day, index) => {
    const height = Math.max(day.volumeMinor > 0 ? 2 : 0, (day.volumeMinor / highest) * plotHeight);
    const x = index * slot + slot * 0.15;
    return html`<rect class="bar" x="${x.toFixed(1)}" y="${(BASELINE - height).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${height.toFixed(1)}"><title>${day.date}: ${moneyText(currency, day.volumeMinor)}</title></rect>`;
  });
  const gridlines = [TOP, (TOP + BASELINE) / 2, BASELINE].map(
    (y) => html`<line class="grid" x1="0" y1="${y}" x2="${WIDTH}" y2="${y}"/>`,
  );
  const first = days[0]!.date;
  const last = days[days.length - 1]!.date;
  const middle = days[Math.floor(days.length / 2)]!.date;
  const summary = `${moneyText(currency, total)} from ${first} to ${last}; the best day ${bestDay(days)} with ${moneyText(currency, highest)}.`;
  const rows = [...days].reverse().map((day) => [day.date, moneyText(currency, day.volumeMinor)]);
  // The labels repeat what the title, the summary and the numbers say: hidden from screen readers.
  return html`<figure class="chart">
<div class="chart-plot">
<div class="chart-y" aria-hidden="true"><span>${moneyText(currency, highest)}</span><span>${moneyText(currency, Math.round(highest / 2))}</span><span>${moneyText(currency, 0)}</span></div>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-labelledby="volume-chart-title volume-chart-summary" focusable="false">
<title id="volume-chart-title">Successful payments per day, ${currency}, last ${days.length} days</title>
${gridlines}
${bars}
</svg>
<div class="chart-x" aria-hidden="true"><span>${shortDate(first)}</span><span>${shortDate(middle)}</span><span>${shortDate(last)}</span></div>
</div>
<figcaption id="volume-chart-summary">${summary}</figcaption>
</figure>
<details class="chart-numbers"><summary>Show the numbers</summary>
${table(`Successful payments per day, ${currency}`, ['Day', 'Volume'], rows, 'No days.')}
</details>`;
}

function bestDay(days: DayVolume[]): string {
  return days.reduce((best, day) => (day.volumeMinor > best.volumeMinor ? day : best)).date;
}
