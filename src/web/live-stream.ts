/**
 * Server-sent event streams to many readers, with backpressure: each reader has its own queue,
 * filled only as far as it reads. A reader that falls `maxQueuedBytes` behind is told so
 * (`event: lagged`) and its stream ends, so one stalled client never makes the server buffer
 * without bound; EventSource then reconnects and the page reloads what it shows.
 */
import { securityHeaders } from './http-response.js';

export interface LiveStreams {
  /** A new reader's response; it ends when the reader goes away, lags or `close()` is called. */
  open(signal?: AbortSignal): Response;
  /** Queues one message for every reader. */
  send(message: string): void;
  /** How many readers are connected. */
  readonly size: number;
  /** Ends every stream. */
  close(): void;
}

const encoder = new TextEncoder();

/** Readers more than this many bytes behind are disconnected; default 1 MiB. */
export const DEFAULT_MAX_QUEUED_BYTES = 1024 * 1024;

export function createLiveStreams(maxQueuedBytes = DEFAULT_MAX_QUEUED_BYTES): LiveStreams {
  const readers = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const end = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (!readers.delete(controller)) return;
    try {
      controller.close();
    } catch {
      // Already closed or errored by the reader's side.
    }
  };
  return {
    open(signal) {
      let reader: ReadableStreamDefaultController<Uint8Array> | undefined;
      const body = new ReadableStream<Uint8Array>(
        {
          start(controller) {
            reader = controller;
            readers.add(controller);
            controller.enqueue(encoder.encode(': live\n\n'));
          },
          cancel() {
            if (reader !== undefined) readers.delete(reader);
          },
        },
        // The queue counts bytes; `desiredSize` below zero means bytes waiting for the reader.
        new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
      );
      signal?.addEventListener('abort', () => reader !== undefined && end(reader), { once: true });
      return new Response(body, {
        status: 200,
        headers: {
          ...securityHeaders(),
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-store',
          'X-Accel-Buffering': 'no',
        },
      });
    },
    send(message) {
      const bytes = encoder.encode(message);
      for (const controller of readers) {
        const waiting = -(controller.desiredSize ?? 0);
        if (waiting + bytes.byteLength > maxQueuedBytes) {
          controller.enqueue(encoder.encode('event: lagged\ndata: {}\n\n'));
          end(controller);
        } else controller.enqueue(bytes);
      }
    },
    get size() {
      return readers.size;
    },
    close() {
      for (const controller of [...readers]) end(controller);
    },
  };
}
