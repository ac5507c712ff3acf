import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * Relays a CGI program's output as the HTTP answer: its header lines (`Status:` included) become the
 * answer's, the rest streams as the body. Output is held back until `requestRead` resolves. Answers whether
 * the headers were complete, and a promise of everything held back having been relayed.
 */
export function relayCgiOutput(stdout: Readable, res: ServerResponse, requestRead: Promise<void> = Promise.resolve()): { headersDone(): boolean; released: Promise<void> } {
  let head = Buffer.alloc(0);
  let headersDone = false;
  let held: Buffer[] | null = [];
  const released = requestRead.then(() => {
    for (const chunk of held!) relay(chunk);
    held = null;
  });
  stdout.on('data', (chunk: Buffer) => (held ? held.push(chunk) : relay(chunk)));
  function relay(chunk: Buffer) {
    if (headersDone) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString().split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]) || 500;
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  }
  return { headersDone: () => headersDone, released };
}
