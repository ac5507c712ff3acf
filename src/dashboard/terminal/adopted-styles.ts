/**
 * xterm.js writes its measured sizes and colours into `<style>` elements it creates, which the page's
 * Content-Security-Policy (`style-src 'self'`) refuses (even empty, even typed as plain text). While `run` creates
 * them, it gets hidden elements of no meaning instead, whose text is kept in a constructed stylesheet, which the
 * policy allows.
 */
export function withAdoptedStyles<T>(run: () => T): { result: T; release: () => void } {
  const sheets: { element: HTMLElement; sheet: CSSStyleSheet; observer: MutationObserver }[] = [];
  const sync = (element: HTMLElement, sheet: CSSStyleSheet) => sheet.replaceSync(element.textContent ?? '');
  const create = Document.prototype.createElement;
  const patched = function (this: Document, name: string, options?: ElementCreationOptions) {
    if (name.toLowerCase() !== 'style') return create.call(this, name, options);
    const style = create.call(this, 'slipway-terminal-style');
    style.hidden = true;
    const sheet = new CSSStyleSheet();
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    const observer = new MutationObserver(() => sync(style, sheet));
    observer.observe(style, { childList: true, characterData: true, subtree: true });
    sheets.push({ element: style, sheet, observer });
    return style;
  } as typeof document.createElement;
  document.createElement = patched;
  let result: T;
  try {
    result = run();
  } finally {
    document.createElement = create;
  }
  for (const { element, sheet } of sheets) sync(element, sheet);
  return {
    result,
    release() {
      for (const { observer } of sheets) observer.disconnect();
      const mine = new Set(sheets.map((s) => s.sheet));
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !mine.has(s));
    },
  };
}

let attributesRouted = false;

/**
 * xterm.js also sets some cells' colours and spacing with `setAttribute('style', …)`, which the policy refuses too;
 * the same declarations set through the CSSOM (`style.cssText`) are allowed and mean the same. Once the terminal
 * is loaded, every `style` attribute set from script takes that way.
 */
export function routeStyleAttributes(): void {
  if (attributesRouted) return;
  attributesRouted = true;
  const setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (this: Element, name: string, value: string) {
    if (name.toLowerCase() === 'style' && (this instanceof HTMLElement || this instanceof SVGElement)) this.style.cssText = value;
    else setAttribute.call(this, name, value);
  };
}
