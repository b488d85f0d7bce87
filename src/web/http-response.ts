/** Responses (Web standard) with the headers every page of the answer app carries. */

/** No inline script or style anywhere, no framing, forms post only to this server. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function securityHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

/** A response with the security headers, `no-store` unless `headers` says otherwise. */
export function respond(
  status: number,
  type: string,
  body: string | Uint8Array | null,
  headers: Record<string, string> = {},
): Response {
  return new Response(body as BodyInit | null, {
    status,
    headers: {
      ...securityHeaders(),
      ...(type === '' ? {} : { 'Content-Type': type }),
      'Cache-Control': 'no-store',
      ...headers,
    },
  });
}

export function htmlResponse(status: number, page: string): Response {
  return respond(status, 'text/html; charset=utf-8', page);
}

/** 405 naming the methods the path takes. */
export function methodNotAllowed(method: string, methods: readonly string[]): Response {
  return respond(405, 'text/plain; charset=utf-8', `Method ${method} is not allowed here.\n`, {
    Allow: methods.join(', '),
  });
}
