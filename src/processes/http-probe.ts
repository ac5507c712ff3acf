import { request } from 'node:http';

/** The status `GET /` answers on the port, or null when nothing answers HTTP there. */
export function httpStatus(port: number, timeoutMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', method: 'GET', headers: { host: 'localhost', 'user-agent': 'slipway-health' }, timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? null);
    });
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** True when anything answers HTTP on the port: any status means the app is up and serving. */
export async function answersHttp(port: number, timeoutMs: number): Promise<boolean> {
  return (await httpStatus(port, timeoutMs)) !== null;
}
