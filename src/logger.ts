export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** One JSON object per line, on stderr unless another sink is given. */
export function createLogger(silent = false, sink: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const write = (level: string) => (message: string, fields: Record<string, unknown> = {}) => {
    if (!silent) sink(JSON.stringify({ t: new Date().toISOString(), level, message, ...fields }) + '\n');
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
