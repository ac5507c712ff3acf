// Terminal escape sequences: CSI (colours, cursor moves), OSC (titles, hyperlinks) and two-byte escapes.
const ESCAPES = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g;
// C0 controls but tab and newline, DEL, and C1 controls.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text from a build, a tool or an engine as Slipway stores it: escape sequences and control characters
 * other than tab and newline removed. They would garble a terminal or a page, and Postgres refuses a NUL.
 */
export const printable = (text: string) => text.replace(ESCAPES, '').replace(CONTROLS, '');

const MAX_REASON = 2000;

/** A failure reason as it is recorded: printable, and short enough to read. */
export function reasonText(text: string): string {
  const clean = printable(text);
  return clean.length > MAX_REASON ? `${clean.slice(0, MAX_REASON)} …` : clean;
}
