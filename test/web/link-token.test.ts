import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLinkTokenSigner, secretsEqual } from '../../src/web/link-token.js';

const secret = randomBytes(32);
const signer = createLinkTokenSigner(secret);
const now = 1_800_000_000_000;

describe('link tokens', () => {
  it('verifies a token for its ask before its expiry', () => {
    const token = signer.sign('ask-1', now + 60_000);
    expect(signer.verify('ask-1', token, now)).toEqual({ ok: true, expiresAt: now + 60_000 });
  });

  it('refuses the token for any other ask', () => {
    const token = signer.sign('ask-1', now + 60_000);
    expect(signer.verify('ask-2', token, now)).toEqual({ ok: false, problem: 'signature' });
    expect(signer.verify('ask-1 ', token, now)).toEqual({ ok: false, problem: 'signature' });
  });

  it('refuses it at and after its expiry', () => {
    const token = signer.sign('ask-1', now + 60_000);
    expect(signer.verify('ask-1', token, now + 60_000)).toEqual({ ok: false, problem: 'expired' });
  });

  it('refuses a token whose expiry was moved, or whose MAC was changed by one character', () => {
    const token = signer.sign('ask-1', now + 60_000);
    const [expiry, mac] = token.split('.') as [string, string];
    const later = (now + 3_600_000).toString(36);
    expect(signer.verify('ask-1', `${later}.${mac}`, now)).toEqual({
      ok: false,
      problem: 'signature',
    });
    const flipped = `${expiry}.${mac.slice(0, 10)}${mac[10] === 'A' ? 'B' : 'A'}${mac.slice(11)}`;
    expect(signer.verify('ask-1', flipped, now)).toEqual({ ok: false, problem: 'signature' });
  });

  it('accepts only the canonical spelling of the MAC (no base64 malleability)', () => {
    const token = signer.sign('ask-1', now + 60_000);
    const last = token.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // The final character's two low bits are padding: these spell the same 32 bytes.
    const index = alphabet.indexOf(last);
    const sameBytes = [1, 2, 3].map((bit) => alphabet[(index & ~3) | ((index + bit) & 3)]!);
    for (const char of sameBytes) {
      const variant = `${token.slice(0, -1)}${char}`;
      expect(Buffer.from(variant.split('.')[1]!, 'base64url')).toEqual(
        Buffer.from(token.split('.')[1]!, 'base64url'),
      );
      expect(signer.verify('ask-1', variant, now)).toEqual({ ok: false, problem: 'malformed' });
    }
  });

  it('has exactly one spelling: an expiry with leading zeros or in capitals is refused', () => {
    const token = signer.sign('ask-1', now + 60_000);
    expect(signer.verify('ask-1', token, now).ok).toBe(true);
    const [expiry, mac] = token.split('.') as [string, string];
    // Each of these names the same expiry (parseInt reads them all as now + 60 000).
    for (const spelling of [
      `0${expiry}`,
      `00${expiry}`,
      `${'0'.repeat(12 - expiry.length)}${expiry}`,
    ]) {
      expect(Number.parseInt(spelling, 36)).toBe(now + 60_000);
      expect(signer.verify('ask-1', `${spelling}.${mac}`, now)).toEqual({
        ok: false,
        problem: 'malformed',
      });
    }
    expect(signer.verify('ask-1', `${expiry.toUpperCase()}.${mac}`, now)).toEqual({
      ok: false,
      problem: 'malformed',
    });
  });

  it('refuses a token signed with another secret', () => {
    const other = createLinkTokenSigner(randomBytes(32));
    expect(signer.verify('ask-1', other.sign('ask-1', now + 60_000), now)).toEqual({
      ok: false,
      problem: 'signature',
    });
  });

  it('calls malformed tokens malformed, whatever their shape', () => {
    for (const token of [
      '',
      '.',
      'abc',
      `${'z'.repeat(13)}.${'A'.repeat(43)}`,
      `1.${'A'.repeat(42)}`,
      `1.${'A'.repeat(43)}.x`,
    ]) {
      expect(signer.verify('ask-1', token, now)).toEqual({ ok: false, problem: 'malformed' });
    }
  });

  it('is an HMAC-SHA256 of the ask id and expiry under the secret', () => {
    const token = signer.sign('ask-1', now + 1);
    const mac = createHmac('sha256', secret)
      .update(`ask-engine/web answer v1\n5:ask-1\n${now + 1}`)
      .digest('base64url');
    expect(token).toBe(`${(now + 1).toString(36)}.${mac}`);
  });

  describe('bound to a recipient', () => {
    const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
    const macOf = (input: string) => createHmac('sha256', secret).update(input).digest('base64url');
    const base = `ask-engine/web answer v1\n5:ask-1\n${now + 60_000}`;

    it('gives back whom it was signed for, with or without a channel', () => {
      const alice = { recipient: 'alice@example.com', channel: 'email' };
      expect(signer.verify('ask-1', signer.sign('ask-1', now + 60_000, alice), now)).toEqual({
        ok: true,
        expiresAt: now + 60_000,
        by: alice,
      });
      const zoe = signer.sign('ask-1', now + 60_000, { recipient: 'Zoë 文字 🚀' });
      expect(signer.verify('ask-1', zoe, now)).toEqual({
        ok: true,
        expiresAt: now + 60_000,
        by: { recipient: 'Zoë 文字 🚀' }, // as given: ids are recorded so, compared by their keys
      });
    });

    it('signs the recipient and the channel, each length-delimited', () => {
      const expiry = (now + 60_000).toString(36);
      expect(signer.sign('ask-1', now + 60_000, { recipient: 'al', channel: 'email' })).toBe(
        `${expiry}.${b64('al')}.${b64('email')}.${macOf(`${base}\nrecipient 2:al\nchannel 5:email`)}`,
      );
      expect(signer.sign('ask-1', now + 60_000, { recipient: 'al' })).toBe(
        `${expiry}.${b64('al')}.${macOf(`${base}\nrecipient 2:al\nno channel`)}`,
      );
    });

    it('refuses the token once its recipient or channel is changed, added or removed', () => {
      const token = signer.sign('ask-1', now + 60_000, { recipient: 'alice', channel: 'email' });
      const [expiry, recipient, channel, mac] = token.split('.') as [
        string,
        string,
        string,
        string,
      ];
      const unbound = signer.sign('ask-1', now + 60_000).split('.')[1]!;
      for (const tampered of [
        `${expiry}.${b64('mallory')}.${channel}.${mac}`,
        `${expiry}.${b64('alicf')}.${channel}.${mac}`,
        `${expiry}.${recipient}.${b64('web')}.${mac}`,
        `${expiry}.${recipient}.${mac}`,
        `${expiry}.${mac}`,
        // An unbound link's MAC does not sign a recipient someone added to it.
        `${expiry}.${b64('alice')}.${unbound}`,
      ]) {
        expect(signer.verify('ask-1', tampered, now)).toEqual({ ok: false, problem: 'signature' });
      }
    });

    it('has one spelling of each name: other base64 spellings, bad UTF-8 and refused names are malformed', () => {
      const expiry = (now + 60_000).toString(36);
      // "al" is YWw; the last character's unused bits set spell the same bytes.
      expect(Buffer.from('YWx', 'base64url').toString()).toBe('al');
      const signedAl = macOf(`${base}\nrecipient 2:al\nno channel`);
      expect(signer.verify('ask-1', `${expiry}.YWw.${signedAl}`, now).ok).toBe(true);
      expect(signer.verify('ask-1', `${expiry}.YWx.${signedAl}`, now)).toEqual({
        ok: false,
        problem: 'malformed',
      });
      // Correctly signed, but no name `sign` would write: invalid UTF-8, a control character.
      const invalidUtf8 = Buffer.from([0xc3, 0x28]).toString('base64url');
      const colored = 'eve\u001b[31m';
      for (const token of [
        `${expiry}.${invalidUtf8}.${macOf(`${base}\nrecipient 2:\ufffd(\nno channel`)}`,
        `${expiry}.${b64(colored)}.${macOf(`${base}\nrecipient ${colored.length}:${colored}\nno channel`)}`,
        `${expiry}.${b64('a'.repeat(300))}.${macOf(`${base}\nrecipient 300:${'a'.repeat(300)}\nno channel`)}`,
      ]) {
        expect(signer.verify('ask-1', token, now)).toEqual({ ok: false, problem: 'malformed' });
      }
    });

    it('refuses to sign for a recipient service.answer would refuse', () => {
      expect(() => signer.sign('ask-1', now + 1, { recipient: 'eve\u0000' })).toThrow(
        /`recipient` contains the control character \\x00 at position 3/,
      );
      expect(() => signer.sign('ask-1', now + 1, { recipient: 'a', channel: '' })).toThrow(
        /Expected `channel` to be a non-empty string/,
      );
    });
  });

  describe('for a recipient’s inbox', () => {
    const alice = { recipient: 'alice', channel: 'email' };
    const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

    it('gives back whom it was signed for, until its expiry', () => {
      const token = signer.signInbox(alice, now + 60_000);
      expect(signer.verifyInbox(token, now)).toEqual({
        ok: true,
        expiresAt: now + 60_000,
        by: alice,
      });
      expect(signer.verifyInbox(token, now + 60_000)).toEqual({ ok: false, problem: 'expired' });
    });

    it('is an HMAC of a scope of its own: it opens no ask, and no answer token opens an inbox', () => {
      const token = signer.signInbox(alice, now + 60_000);
      const mac = createHmac('sha256', secret)
        .update(
          `ask-engine/web recipient inbox v1\n${now + 60_000}\nrecipient 5:alice\nchannel 5:email`,
        )
        .digest('base64url');
      expect(token).toBe(`${(now + 60_000).toString(36)}.${b64('alice')}.${b64('email')}.${mac}`);
      for (const askId of ['', 'inbox', 'recipient inbox v1']) {
        expect(signer.verify(askId, token, now)).toEqual({ ok: false, problem: 'signature' });
      }
      const answer = signer.sign('ask-1', now + 60_000, alice);
      expect(signer.verifyInbox(answer, now)).toEqual({ ok: false, problem: 'signature' });
      expect(signer.verifyInbox(signer.sign('ask-1', now + 60_000), now)).toEqual({
        ok: false,
        problem: 'signature',
      });
    });

    it('refuses a changed recipient or channel, and a token without one', () => {
      const token = signer.signInbox(alice, now + 60_000);
      const [expiry, , , mac] = token.split('.') as [string, string, string, string];
      for (const changed of [
        `${expiry}.${b64('bob')}.${b64('email')}.${mac}`,
        `${expiry}.${b64('alice')}.${b64('web')}.${mac}`,
        `${expiry}.${b64('alice')}.${mac}`,
        `${expiry}.${mac}`,
      ]) {
        expect(signer.verifyInbox(changed, now), changed).toEqual({
          ok: false,
          problem: 'signature',
        });
      }
      expect(() => signer.signInbox(undefined as never, now + 1)).toThrow(/recipient/);
      expect(() => signer.signInbox({ recipient: '' }, now + 1)).toThrow(
        expect.objectContaining({ code: 'INVALID_REQUEST' }),
      );
    });
  });

  it('rejects a secret shorter than 32 bytes, naming its length', () => {
    expect(() => createLinkTokenSigner('short')).toThrow(/at least 32 bytes, got 5/);
  });

  it('compares operator secrets of any length', () => {
    expect(secretsEqual('operator-token-1234', 'operator-token-1234')).toBe(true);
    expect(secretsEqual('operator-token-123', 'operator-token-1234')).toBe(false);
    expect(secretsEqual('', 'operator-token-1234')).toBe(false);
  });
});
