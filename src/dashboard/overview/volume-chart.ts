import { html, type SafeHtml } from '../../web/html.ts';
import { moneyText } from '../../shared/money.ts';
import { table } from '../layout.ts';

export interface DayVolume {
  /** `YYYY-MM-DD` in the gateway's time zone. */
  date: string;
  volumeMinor: number;
}

const WIDTH = 720;
const HEIGHT = 220;
/** Room above and below the bars for the labels, at the larger size phones get. */
const TOP = 32;
const BOTTOM = 36;
const LEFT = 8;
const RIGHT = 8;

/**
 * Daily volume as bars, drawn here as inline SVG: no script, nothing fetched, styled by the
 * stylesheet's classes (the CSP allows no inline style). Screen readers get the figure's title and
 * a one-line summary; the numbers themselves are in the table under "Show the numbers".
 */
export function volumeChart(days: DayVolume[], currency: string): SafeHtml {
  const highest = Math.max(0, ...days.map((day) => day.volumeMinor));
  const total = days.reduce((sum, day) => sum + day.volumeMinor, 0);
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT - RIGHT) / days.length;
  const bars = days.map((day, index) => {
    const height = highest === 0 ? 0 : Math.max(day.volumeMinor > 0 ? 2 : 0, (day.volumeMinor / highest) * plotHeight);
    const x = LEFT + index * slot + slot * 0.15;
    return html`<rect class="bar" x="${x.toFixed(1)}" y="${(TOP + plotHeight - height).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${height.toFixed(1)}"><title>${day.date}: ${moneyText(currency, day.volumeMinor)}</title></rect>`;
  });
  const first = days[0]!.date;
  const last = days[days.length - 1]!.date;
  const summary =
    highest === 0
      ? `No successful payments from ${first} to ${last}.`
      : `${moneyText(currency, total)} from ${first} to ${last}; the best day ${bestDay(days)} with ${moneyText(currency, highest)}.`;
  const baseline = TOP + plotHeight;
  const rows = [...days].reverse().map((day) => [day.date, moneyText(currency, day.volumeMinor)]);
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="volume-chart-title volume-chart-summary" focusable="false">
<title id="volume-chart-title">Successful payments per day, ${currency}, last ${days.length} days</title>
<line class="axis" x1="${LEFT}" y1="${baseline}" x2="${WIDTH - RIGHT}" y2="${baseline}"/>
${bars}
<text class="tick" x="${LEFT}" y="${HEIGHT - 8}">${first}</text>
<text class="tick" x="${WIDTH - RIGHT}" y="${HEIGHT - 8}" text-anchor="end">${last}</text>
<text class="tick" x="${LEFT}" y="${TOP - 8}">${highest > 0 && `max ${moneyText(currency, highest)}`}</text>
</svg>
<figcaption id="volume-chart-summary">${summary}</figcaption>
</figure>
<details class="chart-numbers"><summary>Show the numbers</summary>
${table(`Successful payments per day, ${currency}`, ['Day', 'Volume'], rows, 'No days.')}
</details>`;
}

function bestDay(days: DayVolume[]): string {
  return days.reduce((best, day) => (day.volumeMinor > best.volumeMinor ? day : best)).date;
}
