import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import t from 'tap';

const run = promisify(execFile);
const PROBE = 'dist/probe/slipway-probe';

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const probe = (...args: string[]) =>
  run(PROBE, args).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
  );

t.test('the Swarm tasks’ static probe', { skip: existsSync(PROBE) ? false : `${PROBE} was not built (npm run build, with musl-gcc)` }, async (t) => {
  const resets: string[] = [];
  const server = createServer((req, res) => {
    req.socket.on('error', (error) => resets.push(String(error)));
    const status = req.url === '/broken' ? 500 : 200;
    // The head first and the body a moment later, as apps do: a probe that hung up after the status line
    // would make this write fail.
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.flushHeaders();
    setTimeout(() => res.end('x'.repeat(256 * 1024)), 100);
  });
  const port = await listen(server);
  t.teardown(() => server.close());

  t.same(await probe('http', String(port), '/', '200-399', '2'), { code: 0, stdout: '' }, 'a 200 passes');
  const failed = await probe('http', String(port), '/broken', '200-399', '2');
  t.equal(failed.code, 1, 'a 500 fails');
  t.match(failed.stdout, /HTTP 500 from \/broken/, 'saying what it got');
  t.equal((await probe('http', String(port), '/broken', '500', '2')).code, 0, 'unless 500 is what is expected');
  await new Promise((r) => setTimeout(r, 300));
  t.same(resets, [], 'the probe reads the whole answer: the app sees no broken connection');

  t.equal((await probe('tcp', String(port), '2')).code, 0, 'a port that accepts passes the TCP check');
  server.close();
  const closed = await probe('http', String(port), '/', '200-399', '2');
  t.equal(closed.code, 1, 'nothing listening fails');
});
