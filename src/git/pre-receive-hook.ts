/**
 * The pre-receive hook of every pushed repository, as plain CommonJS run by Slipway's own Node. It reaches
 * Slipway through file descriptor 3, a socket the serving process handed to `git http-backend` and that git
 * passes down to its hooks: no key, token or address is on disk or in the environment. It sends the ref
 * updates, prints each line Slipway answers (git shows them to the pusher as `remote:` lines) and exits
 * with Slipway's verdict; a non-zero exit leaves every ref where it was.
 */
export const PRE_RECEIVE_HOOK = String.raw`'use strict';
const net = require('node:net');
const readline = require('node:readline');
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const updates = input.split('\n').filter(Boolean).map((line) => {
    const [oldSha, newSha, ref] = line.split(' ');
    return { oldSha, newSha, ref };
  });
  let socket;
  try {
    socket = new net.Socket({ fd: 3, readable: true, writable: true });
  } catch {
    console.log('this push did not come through Slipway: refused');
    process.exit(1);
  }
  let verdict = null;
  socket.on('error', () => undefined);
  readline.createInterface({ input: socket, crlfDelay: Infinity }).on('line', (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof message.line === 'string') console.log(message.line);
    if (typeof message.ok === 'boolean') {
      verdict = message;
      if (!message.ok) console.log(String(message.reason));
      process.exitCode = message.ok ? 0 : 1;
      socket.destroy();
    }
  });
  socket.on('close', () => {
    if (verdict === null) {
      console.log('Slipway went away before the deployment ended: push refused');
      process.exit(1);
    }
  });
  socket.write(JSON.stringify({ updates, quarantine: process.env.GIT_QUARANTINE_PATH || null }) + '\n');
});
`;
