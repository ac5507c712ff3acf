import { request } from 'node:http';

/** True when anything answers HTTP on the port: any status means the app is up and serving. */
export function answersHttp(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', method: 'GET', headers: { host: 'localhost', 'user-agent': 'slipway-health' }, timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}
