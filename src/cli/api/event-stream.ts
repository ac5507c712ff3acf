import { createParser } from 'eventsource-parser';

export interface StreamEvent {
  event: string;
  data: unknown;
}

/** The events of a Server-Sent Events body, in order, until the server closes the stream. */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const queue: StreamEvent[] = [];
  const parser = createParser({ onEvent: (e) => queue.push({ event: e.event ?? 'message', data: JSON.parse(e.data) as unknown }) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (queue.length > 0) yield queue.shift()!;
  }
}
