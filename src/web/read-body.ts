/** Reads a urlencoded request body (Web standard) up to a limit, without buffering past it. */
import { BodyError, type FormFields, parseFormFields } from './form-body.js';

/** The posted form fields; a field sent several times keeps every value, in order. */
export async function readFormBody(request: Request, limit: number): Promise<FormFields> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new BodyError(
      415,
      `Expected Content-Type application/x-www-form-urlencoded, got ${JSON.stringify(type)}.`,
    );
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) throw new BodyError(413, tooLarge(limit));
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
  return parseFormFields(new TextDecoder().decode(bytes));
}

function tooLarge(limit: number): string {
  return `The answer is larger than this server accepts (${limit} bytes); each text may hold 32 KiB.`;
}
