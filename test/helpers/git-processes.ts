import { execFileSync } from 'node:child_process';

/** pid → command line of this machine's git processes (git and its transfer helpers, git-remote-http) naming `text`. */
export function gitProcessesOf(text: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const line of execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n')) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (m && /^(\S*\/)?git(-remote-https?)?\s/.test(m[2]!) && m[2]!.includes(text)) found.set(Number(m[1]), m[2]!);
  }
  return found;
}
