/** Reads a urlencoded request body up to a limit, without buffering past it. */
import type { IncomingMessage } from 'node:http';
import { BodyError, type FormFields, parseFormFields } from './form-body.js';

/** The posted form fields; a field sent several times keeps every value, in order. */
export async function readFormBody(request: IncomingMessage, limit: number): Promise<FormFields> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new BodyError(
      415,
      `Expected Content-Type application/x-www-form-urlencoded, got ${JSON.stringify(type)}.`,
    );
  }
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (declared > limit) throw new BodyError(413, tooLarge(limit));
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyError(413, tooLarge(limit));
    chunks.push(chunk);
  }
  return parseFormFields(Buffer.concat(chunks).toString('utf8'));
}

function tooLarge(limit: number): string {
  return `The answer is larger than this server accepts (${limit} bytes); each text may hold 32 KiB.`;
}
