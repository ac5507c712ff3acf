// No Node imports: the write side masks Redis console lines with it, and the dashboard's type-check reaches it.

/** A line redis-cli would refuse to split. */
export class CommandLineError extends Error {
  override readonly name = 'CommandLineError';
}

/**
 * Splits one command line the way redis-cli does (its `sdssplitargs`):
 * - arguments are separated by spaces, tabs, CR and LF;
 * - inside double quotes `\n \r \t \b \a \" \\` and `\xHH` (a byte) are escapes; `\` before any other
 *   character stands for that character;
 * - inside single quotes everything is literal except `\'`, a quote;
 * - a quote may start in the middle of an argument (`a"b c"` is `ab c`), but a closing quote must be
 *   followed by whitespace or the end of the line;
 * - an unterminated quote, or a closing quote followed by something else, makes the line invalid.
 *
 * Arguments are bytes (`\xHH` can make any byte sequence); plain text is its UTF-8 encoding.
 */
const isSpace = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** What follows a closing quote must end the argument, as in redis-cli. */
function endOfQuote(after: number | undefined) {
  if (after !== undefined && !isSpace(after)) throw new CommandLineError('a closing quote must be followed by a space or the end of the line');
}

export function splitCommandLineBytes(line: string): Uint8Array[] {
  const args: Uint8Array[] = [];
  const input = new TextEncoder().encode(line);
  let i = 0;
  const n = input.length;
  for (;;) {
    while (i < n && isSpace(input[i])) i++;
    if (i >= n) return args;
    const bytes: number[] = [];
    let done = false;
    while (!done) {
      const b = input[i];
      if (b === undefined || isSpace(b)) {
        done = true;
      } else if (b === 0x22 /* " */) {
        i++;
        for (;;) {
          const c = input[i];
          if (c === undefined) throw new CommandLineError('unbalanced quotes in the command line');
          if (c === 0x5c /* \ */ && i + 3 < n && input[i + 1] === 0x78 /* x */ && isHex(input[i + 2]) && isHex(input[i + 3])) {
            bytes.push(parseInt(String.fromCharCode(input[i + 2]!, input[i + 3]!), 16));
            i += 4;
          } else if (c === 0x5c && i + 1 < n) {
            const e = input[i + 1]!;
            bytes.push(ESCAPES[e] ?? e);
            i += 2;
          } else if (c === 0x22) {
            i++;
            endOfQuote(input[i]);
            done = true;
            break;
          } else {
            bytes.push(c);
            i++;
          }
        }
      } else if (b === 0x27 /* ' */) {
        i++;
        for (;;) {
          const c = input[i];
          if (c === undefined) throw new CommandLineError('unbalanced quotes in the command line');
          if (c === 0x5c && input[i + 1] === 0x27) {
            bytes.push(0x27);
            i += 2;
          } else if (c === 0x27) {
            i++;
            endOfQuote(input[i]);
            done = true;
            break;
          } else {
            bytes.push(c);
            i++;
          }
        }
      } else {
        bytes.push(b);
        i++;
      }
    }
    args.push(Uint8Array.from(bytes));
  }
}

const ESCAPES: Record<number, number> = {
  0x6e /* n */: 0x0a,
  0x72 /* r */: 0x0d,
  0x74 /* t */: 0x09,
  0x62 /* b */: 0x08,
  0x61 /* a */: 0x07,
};

function isHex(b: number | undefined): boolean {
  return b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));
}
