/**
 * Where ask-engine's platform limits come from the adapters themselves, they agree with them:
 * a Discord button fits exactly when the Discord adapter's own `custom_id` encoder accepts it.
 */
import { encodeDiscordCustomId } from '@chat-adapter/discord';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHAT_ACTION_ID } from '../../../src/chat/card-reference.js';
import { discordPlatform } from '../../../src/chat/platforms/discord.js';

describe('discordPlatform.fitsButton', () => {
  it('accepts exactly the action id and value the adapter can encode into a custom_id', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 120 }), (value) => {
        let encodes = true;
        try {
          encodeDiscordCustomId(CHAT_ACTION_ID, value);
        } catch {
          encodes = false;
        }
        expect(discordPlatform.fitsButton(CHAT_ACTION_ID, value)).toBe(encodes);
      }),
      { numRuns: 500 },
    );
  });

  it('fits every button ask-engine writes, with room to spare', () => {
    expect(discordPlatform.fitsButton(CHAT_ACTION_ID, 'AAAAAAAAAAAAAAAA.o999')).toBe(true);
  });
});
