/** The examples are programs a user copies from: they must keep running and saying what they claim. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runExample as example, projectRoot as root } from './run-example.js';

describe('examples', () => {
  it('import the package by name, as a user copying them would', () => {
    for (const file of readdirSync(join(root, 'examples')).filter((name) => name.endsWith('.ts'))) {
      const source = readFileSync(join(root, 'examples', file), 'utf8');
      const imports = [...source.matchAll(/from '([^']+)'/g)].map((match) => match[1]);
      // Packages only (ask-engine's entries, the frameworks an example shows), never sources.
      expect(
        imports.filter((name) => name?.startsWith('.') || name?.includes('/src/')),
        file,
      ).toEqual([]);
      expect(
        imports.some((name) => name === 'ask-engine' || name?.startsWith('ask-engine/')),
        file,
      ).toBe(true);
    }
  });

  it('agent-loop prints every tool result and the audit trail', async () => {
    const out = await example('agent-loop.ts');
    expect(out).toContain('Selected: "Vitest"');
    expect(out).toContain('Comment: "Windows next quarter."');
    expect(out).toContain('Skipped: the user gave no answer to this question; nothing was chosen.');
    expect(out).toMatch(/timed out after 1 s and nothing was chosen/);
    expect(out).toContain('End your turn now');
    expect(out).toContain('[resume chat-thread-17] -> answered');
    expect(out).toMatch(/call-6\s+resume\s+deferred -> answered/);
  });

  it('permission-plugin allows only on an explicit answer', async () => {
    const out = await example('permission-plugin.ts');
    expect(out).toContain('rm -rf build/: allowed (answered)');
    expect(out).toContain('git push --force: not allowed (timedOut)');
  });

  it('form-host answers through a generic form', async () => {
    const out = await example('form-host.ts');
    expect(out).toContain('fields: q1.mode, q1.selection, q2.mode, q2.text');
    expect(out).toContain('Typed answer: "Friday afternoon"');
  });

  it('web-mount answers through the page mounted under a prefix of a Hono app', async () => {
    const out = await example('web-mount.ts');
    expect(out).toMatch(/posted to \/answers\/a\/[^:]+: 200/);
    expect(out).toContain('"selections":["Yes"]');
    expect(out).toContain('/answers/a/: true');
  });
});
