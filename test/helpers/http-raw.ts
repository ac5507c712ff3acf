import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the text when it is not JSON. */
  body: any;
}

/**
 * One request with the path sent exactly as given (`fetch` would resolve `..` and `%2e%2e` away) and any
 * method, TRACE included, which `fetch` refuses to send.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string | null; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers, agent: false, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', reject);
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // Not JSON: the text is the body.
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}
