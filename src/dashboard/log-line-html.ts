import { AnsiUp } from 'ansi_up';

// Classes, not inline styles: the page's Content-Security-Policy allows no style attributes.
const ansi = new AnsiUp();
ansi.use_classes = true;

/**
 * A log line as HTML: its ANSI colours as classes, everything else escaped. A log is written by the
 * deployed code, so it is hostile input: only http(s) links (OSC 8) become anchors.
 */
export const logLineHtml = (line: string): string => ansi.ansi_to_html(line);
