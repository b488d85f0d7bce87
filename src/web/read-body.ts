/**
 * Reads a urlencoded answer up to a limit: from the request's own body (Web standard), without
 * buffering past the limit, or from the body a Node host server already parsed (Express's
 * `express.urlencoded()`, Fastify's `@fastify/formbody`, Koa's body parser). Both kinds pass the
 * same checks: the content type, the size limit and one parse of the urlencoded text.
 */
import { describe, describeKind } from '../rules/describe.js';
import { BodyError, type FormFields, parseFormFields } from './form-body.js';

/** The body a host server read and parsed before the app saw the request. */
export interface HostParsedBody {
  /** What the host's body parser produced (`req.body`). */
  readonly parsed: unknown;
}

/**
 * The posted form fields; a field sent several times keeps every value, in order. With `host`,
 * the fields are those the host parsed, written back as urlencoded text and read as a posted
 * body is: the same limit, field cap, names refused and decoding.
 */
export async function readFormBody(
  request: Request,
  limit: number,
  host?: HostParsedBody,
): Promise<FormFields> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new BodyError(
      415,
      `Expected Content-Type application/x-www-form-urlencoded, got ${JSON.stringify(type)}.`,
    );
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) throw new BodyError(413, tooLarge(limit));
  const text = host === undefined ? await readText(request, limit) : hostText(host.parsed);
  if (host !== undefined && new TextEncoder().encode(text).byteLength > limit) {
    throw new BodyError(413, tooLarge(limit));
  }
  return parseFormFields(text);
}

/**
 * The Node request a host server handed over (`env.incoming`, as `@hono/node-server`'s
 * `getRequestListener` passes it), when its body was read before the app saw it: the parsed
 * body it kept as `body`, or `'lost'` when it kept none, so the answer cannot be read.
 * `undefined` when there is no Node request or its body is still unread.
 */
export function bodyReadByHost(env: unknown): HostParsedBody | 'lost' | undefined {
  const incoming = (env as { incoming?: unknown } | undefined)?.incoming as
    | { readableEnded?: unknown; body?: unknown }
    | undefined;
  // A body parser reads the stream to its end; an unread body has not ended.
  if (typeof incoming !== 'object' || incoming === null || incoming.readableEnded !== true) {
    return undefined;
  }
  return incoming.body === undefined ? 'lost' : { parsed: incoming.body };
}

/** What the server's log says when a host read the body and kept nothing the app can read. */
export function lostBodyWarning(path: string): string {
  return `ask-engine/web: the body of POST ${path} was read before the answer app saw it (by a body parser such as express.urlencoded(), @fastify/formbody or a Koa body parser) and is not on the request as \`req.body\`, so the answer was refused and nothing was recorded. Mount the answer app before the body parser, or hand the parsed body over as \`req.body\` of the Node request (Fastify: \`request.raw.body = request.body\`; Koa: \`ctx.req.body = ctx.request.body\`).`;
}

async function readText(request: Request, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        throw new BodyError(413, tooLarge(limit));
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * A host-parsed body as the urlencoded text it came from: the raw text or bytes (a text or raw
 * body parser), or an object of fields whose values are texts or lists of texts (a form body
 * parser). A nested value (a bracketed name read by `qs`) is no field of any answer form.
 */
function hostText(parsed: unknown): string {
  if (typeof parsed === 'string') return parsed;
  if (parsed instanceof Uint8Array) return new TextDecoder().decode(parsed);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new BodyError(
      400,
      `The answer reached this app as ${describe(parsed)} from the server's body parser, not as form fields; the answer was refused and nothing was recorded.`,
    );
  }
  const fields = new URLSearchParams();
  for (const [name, value] of Object.entries(parsed)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    for (const one of values) {
      if (typeof one !== 'string') {
        throw new BodyError(
          400,
          `The answer's field ${describe(name)} reached this app as ${describeKind(one)} from the server's body parser; an answer form sends only text. The answer was refused as malformed and nothing was recorded.`,
        );
      }
      fields.append(name, one);
    }
  }
  return fields.toString();
}

function tooLarge(limit: number): string {
  return `The answer is larger than this server accepts (${limit} bytes); each text may hold 32 KiB.`;
}
