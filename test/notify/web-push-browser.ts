/**
 * The browser's side of Web Push, written from the RFCs with node:crypto only: a subscription's
 * keys (RFC 8291), decrypting an aes128gcm message (RFC 8188 + 8291), and checking a VAPID
 * `Authorization` header (RFC 8292) as a push service would.
 */
import {
  createDecipheriv,
  createECDH,
  createPublicKey,
  hkdfSync,
  randomBytes,
  verify,
} from 'node:crypto';

export interface TestSubscription {
  /** `PushSubscription.toJSON()`'s shape, as the recipient's address. */
  json: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
  decrypt(body: Buffer): string;
}

export function createTestSubscription(endpoint: string): TestSubscription {
  const ecdh = createECDH('prime256v1');
  const uaPublic = ecdh.generateKeys();
  const authSecret = randomBytes(16);
  return {
    json: {
      endpoint,
      expirationTime: null,
      keys: { p256dh: uaPublic.toString('base64url'), auth: authSecret.toString('base64url') },
    },
    decrypt(body) {
      // RFC 8188 header: salt (16), record size (4), key id length (1), key id (the sender's key).
      const salt = body.subarray(0, 16);
      const recordSize = body.readUInt32BE(16);
      const idLength = body[20]!;
      const asPublic = body.subarray(21, 21 + idLength);
      const record = body.subarray(21 + idLength);
      if (idLength !== 65 || record.length > recordSize) {
        throw new Error(
          `Not one aes128gcm record: key id ${idLength} bytes, record ${record.length}`,
        );
      }
      // RFC 8291 §3.4: the input keying material from the ECDH secret and the auth secret.
      const ecdhSecret = ecdh.computeSecret(asPublic);
      const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
      const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, authSecret, keyInfo, 32));
      const cek = Buffer.from(
        hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16),
      );
      const nonce = Buffer.from(
        hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12),
      );
      const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
      decipher.setAuthTag(record.subarray(record.length - 16));
      const padded = Buffer.concat([
        decipher.update(record.subarray(0, record.length - 16)),
        decipher.final(),
      ]);
      // The last record ends with the delimiter 0x02 and then zero padding.
      let end = padded.length - 1;
      while (end >= 0 && padded[end] === 0) end--;
      if (padded[end] !== 2) throw new Error('No last-record delimiter');
      return padded.subarray(0, end).toString('utf8');
    },
  };
}

/** The VAPID JWT's claims, once its ES256 signature checked out against the `k=` key. */
export function verifyVapid(authorization: string | undefined): {
  header: Record<string, unknown>;
  claims: { aud: string; exp: number; sub: string };
  publicKey: string;
} {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(authorization ?? '');
  if (match === null) throw new Error(`Not a VAPID Authorization header: ${authorization}`);
  const [jwt, publicKey] = [match[1]!, match[2]!];
  const [header, claims, signature] = jwt.split('.') as [string, string, string];
  const point = Buffer.from(publicKey, 'base64url');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  const signed = verify(
    'sha256',
    Buffer.from(`${header}.${claims}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) throw new Error('The VAPID JWT signature does not verify');
  const read = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  return { header: read(header), claims: read(claims), publicKey };
}
