import { connect, type Socket } from 'node:net';

export interface HeldRequest {
  socket: Socket;
  /** The status line and body, once the server answers (or '' when it closed without one). */
  answer: Promise<string>;
}

/** A raw JSON POST on 127.0.0.1:`port` that sends its head and `first` bytes of its body, then nothing unless told. */
export function holdRequest(port: number, path: string, headers: string, first: string): HeldRequest {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('close', () => resolve(text));
  });
  socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${headers}\r\n${first}`);
  return { socket, answer };
}

/** A chunked request that has sent one chunk. */
export const holdChunked = (port: number, path: string) => holdRequest(port, path, 'Transfer-Encoding: chunked\r\n', '1\r\n{\r\n');

export const statusOfAnswer = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
