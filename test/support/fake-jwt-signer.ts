/**
 * RS256 JSON Web Tokens signed with a key generated in the test, for the platforms whose inbound
 * requests carry a bearer token (Teams' Bot Framework, Google Chat): the test serves the public
 * half where the adapter fetches its keys, so the adapter's own check runs unchanged.
 */
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';

/** A test signing key with the id (`kid`) the token header names. */
export interface TestSigningKey {
  kid: string;
  privateKey: KeyObject;
  /** The public key as a JSON Web Key (`kty`, `n`, `e`, `kid`, `use`, `alg`). */
  jwk: Record<string, string>;
  /** The public key as PEM (SPKI). */
  publicPem: string;
}

/** Generates a fresh 2048-bit RSA key for signing test tokens. */
export function generateSigningKey(kid: string): TestSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' }) as Record<string, string>;
  return {
    kid,
    privateKey,
    jwk: { ...jwk, kid, use: 'sig', alg: 'RS256' },
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

/** A compact RS256 token over `claims`, its header naming `key.kid`. */
export function signJwt(key: TestSigningKey, claims: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${encode({ alg: 'RS256', typ: 'JWT', kid: key.kid })}.${encode(claims)}`;
  const signature = sign('RSA-SHA256', Buffer.from(signed), key.privateKey).toString('base64url');
  return `${signed}.${signature}`;
}

/** Seconds since the epoch, the unit of `iat`, `nbf` and `exp`. */
export function epochSeconds(at = Date.now()): number {
  return Math.floor(at / 1000);
}
