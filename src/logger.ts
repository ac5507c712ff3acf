export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** One JSON object per line on stderr. */
export function createLogger(silent = false): Logger {
  const write = (level: string) => (message: string, fields: Record<string, unknown> = {}) => {
    if (!silent) process.stderr.write(JSON.stringify({ t: new Date().toISOString(), level, message, ...fields }) + '\n');
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
