/**
 * The checkout's icons, inline SVG so the page needs no image request. Decorative only: the text
 * next to each one says the same thing, so they are hidden from screen readers.
 */
import { raw } from '../../web/html.ts';

const svg = (size: number, paths: string) =>
  raw(
    `<svg class="icon" width="${size}" height="${size}" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">${paths}</svg>`,
  );

export const ICONS = {
  phone: svg(20, '<rect x="6" y="2" width="12" height="20" rx="2.5"/><path d="M11 18h2"/>'),
  card: svg(20, '<rect x="2" y="5" width="20" height="14" rx="2.5"/><path d="M2 10h20M6 15h4"/>'),
  bank: svg(20, '<path d="M3 10l9-6 9 6M5 10v8M9.5 10v8M14.5 10v8M19 10v8M3 21h18"/>'),
  largeBank: svg(28, '<path d="M3 10l9-6 9 6M5 10v8M9.5 10v8M14.5 10v8M19 10v8M3 21h18"/>'),
  lock: svg(14, '<rect x="4" y="11" width="16" height="10" rx="2"/><path d="M8 11V7a4 4 0 0 1 8 0v4"/>'),
  alert: svg(20, '<circle cx="12" cy="12" r="10"/><path d="M12 7v6M12 17h.01"/>'),
  largePhone: svg(28, '<rect x="6" y="2" width="12" height="20" rx="2.5"/><path d="M11 18h2"/>'),
  check: svg(32, '<path d="M5 12.5l4.5 4.5L19 7.5"/>'),
  cross: svg(32, '<path d="M7 7l10 10M17 7L7 17"/>'),
  ban: svg(32, '<circle cx="12" cy="12" r="9"/><path d="M5.6 5.6l12.8 12.8"/>'),
  clock: svg(32, '<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/>'),
  search: svg(32, '<circle cx="11" cy="11" r="7"/><path d="M20 20l-4-4"/>'),
} as const;
