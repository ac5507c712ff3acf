/** The text of anything thrown, for a log line or a recorded reason. */
export const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
