import { CommandLineError, splitCommandLineBytes } from '../../commands/database/redis-command-line.js';
import { BrowserError } from './browser.js';

/** The arguments of a redis-cli line as Buffers (what ioredis sends); a line redis-cli refuses is `invalid`. */
export function splitCommandLine(line: string): Buffer[] {
  try {
    return splitCommandLineBytes(line).map((arg) => Buffer.from(arg.buffer, arg.byteOffset, arg.byteLength));
  } catch (error) {
    if (error instanceof CommandLineError) throw new BrowserError('invalid', error.message);
    throw error;
  }
}
