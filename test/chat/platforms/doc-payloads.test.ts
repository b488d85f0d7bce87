/**
 * The payloads docs/chat.md shows are what the platforms get: made again here as
 * scripts/chat-payloads.ts makes them (the real adapters, local fakes), they match the files
 * the page copies in (`npx tsx scripts/chat-payloads.ts && npm run docs:snippets` updates both).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chatPayloads } from '../../../scripts/chat-payloads.js';

const ROOT = resolve(import.meta.dirname, '../../..');

describe('the payloads of docs/chat.md', () => {
  it('are the JSON each platform receives for an open card, the settled card and a refused click', async () => {
    const payloads = await chatPayloads();
    expect(payloads.size).toBe(9);
    for (const [file, text] of payloads) {
      expect(readFileSync(join(ROOT, file), 'utf8'), file).toBe(text);
    }
  }, 60_000);
});
