/** One figure per line: what was measured, then the number. */
export const line = (label: string, value: string) => console.log(`${label.padEnd(58)} ${value}`);
