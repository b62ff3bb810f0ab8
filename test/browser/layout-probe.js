/* global document, getComputedStyle, SVGElement, SVGSVGElement */
// What of the page as it is laid out now does not fit its width, one line each (see assertFits in
// layout.ts, which reads this file and runs it in the page: its value is the last expression's).
(() => {
  const SLACK = 1; // sub-pixel rounding
  // Measured at rest: a spinning ring's box sweeps its corners past its frame, which nobody sees.
  const running = document.getAnimations().filter((animation) => animation.playState === 'running');
  for (const animation of running) {
    animation.pause();
    animation.currentTime = 0;
  }
  const root = document.documentElement;
  const problems = [];
  if (root.scrollWidth > root.clientWidth + SLACK)
    problems.push(`the page scrolls sideways: ${root.scrollWidth} px wide in ${root.clientWidth} px`);

  const name = (element) => {
    const id = element.id ? `#${element.id}` : '';
    const classes = [...element.classList].map((item) => `.${item}`).join('');
    const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 40);
    return `${element.tagName.toLowerCase()}${id}${classes}${text ? ` "${text}"` : ''}`;
  };
  const scrolls = (style) => style.overflowX === 'auto' || style.overflowX === 'scroll';
  const outOfFlow = (style) => style.position === 'absolute' || style.position === 'fixed';
  // Form fields scroll their own text.
  const ownText = (element) => ['INPUT', 'TEXTAREA', 'SELECT'].includes(element.tagName);
  /** The box an element sits in: its nearest ancestor laid out as a box of its own. */
  const boxOf = (element) => {
    for (let up = element.parentElement; up; up = up.parentElement) {
      const display = getComputedStyle(up).display;
      if (display !== 'inline' && display !== 'contents') return up;
    }
    return null;
  };

  const overflowing = [];
  const notes = new Map();
  const hidden = [];
  for (const element of document.body.querySelectorAll('*')) {
    // An SVG's shapes are drawn in its own coordinates: the svg element is the box that counts.
    if (element instanceof SVGElement && !(element instanceof SVGSVGElement)) continue;
    if (!element.checkVisibility({ visibilityProperty: true })) continue;
    if (hidden.some((box) => box.contains(element))) continue;
    const style = getComputedStyle(element);
    const rect = element.getBoundingClientRect();
    // A visually hidden label is a 1 px box by design.
    if (rect.width <= 1 && rect.height <= 1) {
      hidden.push(element);
      continue;
    }
    // Its own text past its edges (its elements are each checked against it below). Not its
    // scrollWidth, which counts decorations drawn out of the flow, as a tab's underline.
    if (style.display !== 'inline' && !scrolls(style) && !ownText(element) && style.textOverflow !== 'ellipsis') {
      const inner = {
        left: rect.left + element.clientLeft,
        right: rect.left + element.clientLeft + element.clientWidth,
      };
      for (const node of element.childNodes) {
        if (node.nodeType !== 3 || node.textContent.trim() === '') continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const text = range.getBoundingClientRect();
        const past = Math.max(inner.left - text.left, text.right - inner.right);
        if (past > SLACK) {
          overflowing.push(element);
          notes.set(element, `${name(element)}: its text runs ${Math.round(past)} px past its box`);
          break;
        }
      }
    }
    // An element out of the flow is placed against another box than its parent's: the window check covers it.
    const box = outOfFlow(style) ? null : boxOf(element);
    if (box && !scrolls(getComputedStyle(box))) {
      const outer = box.getBoundingClientRect();
      const past = Math.max(outer.left - rect.left, rect.right - outer.right);
      if (past > SLACK) {
        overflowing.push(element);
        notes.set(element, `${name(element)} sticks out of ${name(box)} by ${Math.round(past)} px`);
      }
    }
  }
  // Only the innermost culprits: every box around an overflowing one overflows with it.
  const innermost = overflowing.filter(
    (element) => !overflowing.some((other) => other !== element && element.contains(other)),
  );

  // Buttons drawn as boxes side by side need a gap between them, or they read as one and a thumb
  // hits the wrong one (icons in one bar, drawn as nothing of their own, are one control to the eye).
  const GAP = 4;
  const drawn = (control) => {
    const style = getComputedStyle(control);
    const border = ['Top', 'Right', 'Bottom', 'Left'].some(
      (side) => parseFloat(style[`border${side}Width`]) > 0 && style[`border${side}Style`] !== 'none',
    );
    return border || style.backgroundColor !== 'rgba(0, 0, 0, 0)';
  };
  const controls = [
    ...document.body.querySelectorAll('button, input[type=submit], input[type=button], a.button, a.button-link'),
  ]
    .filter((control) => control.checkVisibility({ visibilityProperty: true }) && drawn(control))
    .map((control) => ({ control, rect: control.getBoundingClientRect() }))
    .filter(({ rect }) => rect.width > 1 && rect.height > 1);
  // A menu dropped over the page (positioned out of the flow) is a layer of its own: what it
  // covers is not beside its buttons.
  const layerOf = (element) => {
    for (let up = element; up; up = up.parentElement) if (outOfFlow(getComputedStyle(up))) return up;
    return null;
  };
  const crowded = [];
  for (const [i, a] of controls.entries()) {
    for (const b of controls.slice(i + 1)) {
      if (layerOf(a.control) !== layerOf(b.control)) continue;
      const sameRow = Math.min(a.rect.bottom, b.rect.bottom) - Math.max(a.rect.top, b.rect.top) > 0;
      const apart = Math.max(b.rect.left - a.rect.right, a.rect.left - b.rect.right);
      if (sameRow && apart < GAP && !a.control.contains(b.control) && !b.control.contains(a.control))
        crowded.push(`${name(a.control)} and ${name(b.control)} are ${Math.round(apart)} px apart`);
    }
  }
  for (const animation of running) animation.play();
  return {
    width: root.clientWidth,
    problems: [...problems, ...innermost.map((element) => notes.get(element)), ...crowded],
  };
})();
