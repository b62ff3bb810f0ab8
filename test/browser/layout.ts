import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Frame, Page } from 'playwright-core';

/**
 * The check itself, run in the page: plain JavaScript read as it is, since the functions tsx
 * compiles carry a helper (`__name`) the page does not have.
 */
const PROBE = fs.readFileSync(new URL('./layout-probe.js', import.meta.url), 'utf8');

/** A phone, a tablet (or a narrow desktop window) and a desktop: every page is checked at these. */
export const CHECKED_WIDTHS = [360, 768, 1280] as const;

/**
 * Fails when the page as the browser lays it out now does not fit its width: the document
 * scrolls sideways, or a visible element is wider than its own box (its content runs past its
 * edge, as a label in a button too narrow for it) or sticks out of the box it sits in. A box that
 * scrolls (overflow auto or scroll: a table's frame, a code block) may hold wider content: that is
 * what it is for. Form fields scroll their own text, a visually hidden label is a 1 px box by
 * design, and an element positioned out of the flow is checked only against the window. Two
 * buttons side by side with less than 4 px between them fail too. Each finding names the
 * element, the width and by how many pixels.
 */
export async function assertFits(target: Page | Frame, what: string): Promise<void> {
  const found = (await target.evaluate(PROBE)) as { width: number; problems: string[] };
  assert.deepEqual(found.problems, [], `${what} fits ${found.width} px`);
}

/**
 * `assertFits` at each of `CHECKED_WIDTHS`, the tab resized for each and then given its own size
 * back; `frame` checks a framed page (the popup's checkout) in the same tab.
 */
export async function assertFitsEveryWidth(page: Page, what: string, frame?: () => Frame): Promise<void> {
  const own = page.viewportSize() ?? { width: 1280, height: 800 };
  try {
    for (const width of CHECKED_WIDTHS) {
      // Reading the sizes lays the page out again at once: no frame is waited for, which a tab with JavaScript off never draws.
      await page.setViewportSize({ width, height: own.height });
      await assertFits(frame ? frame() : page, `${what} at ${width} px`);
    }
  } finally {
    await page.setViewportSize(own);
  }
}
