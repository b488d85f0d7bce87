import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import fastConfig from '../../vitest.fast.config.js';
import { fastLane, SLOW_MODULES, slowReason } from '../support/test-lanes.js';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'ask-lanes-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

describe('the fast lane is derived from what each test file imports', () => {
  it('leaves out a file that reaches a slow module through a helper, with the chain', () => {
    const root = tree({
      'web/page.test.ts': "import { openPage } from './fixture.js';\n",
      'web/fixture.ts': "export { chromium } from 'playwright-core';\n",
      'rules/pure.test.ts': "import { it } from 'vitest';\nimport { x } from '../web/plain.js';\n",
      'web/plain.ts': 'export const x = 1;\n',
    });
    expect(fastLane(root).map((file) => file.slice(root.length + 1))).toEqual([
      'rules/pure.test.ts',
    ]);
    expect(slowReason(join(root, 'web/page.test.ts'), resolve(root))).toBe(
      './fixture.js → playwright-core (drives a browser)',
    );
  });

  it('catches every kind of slow module, in static and dynamic imports, and import cycles end', () => {
    for (const name of SLOW_MODULES.keys()) {
      const root = tree({
        'a.test.ts': "import './b.js';\n",
        'b.ts': `import './a.test.js';\nconst m = await import('${name}');\n`,
      });
      expect(fastLane(root), name).toEqual([]);
    }
  });

  it('keeps the lane of this repository free of browsers, servers and processes', () => {
    const lane = fastLane('test');
    expect(lane.length).toBeGreaterThan(50);
    expect(lane).not.toContain(join('test', 'web', 'answer-page.test.ts'));
    expect(lane).not.toContain(join('test', 'stores', 'postgres-store.test.ts'));
    expect(lane).not.toContain(join('test', 'cli', 'ask.tmux.test.ts'));
    expect(lane).toContain(join('test', 'machines', 'ask-table.test.ts'));
  });

  it('is what npm run test:fast runs, and nothing else; files that change shared state run isolated', () => {
    const projects = (fastConfig.test?.projects ?? []) as {
      test: { name: string; include: string[]; isolate?: boolean };
    }[];
    expect(fastConfig.test?.include).toEqual([]);
    expect(projects.flatMap((project) => project.test.include).sort()).toEqual(
      fastLane('test').sort(),
    );
    const isolated = projects.find((project) => project.test.isolate !== false);
    expect(isolated?.test.include).toContain(join('test', 'mcp', 'request-timeout.test.ts'));
    expect(isolated?.test.include).toContain(join('test', 'engine', 'turn-slicer.test.ts'));
    const shared = projects.find((project) => project.test.isolate === false);
    expect(shared?.test.include).toContain(join('test', 'machines', 'ask-table.test.ts'));
    expect(shared?.test.include).not.toContain(join('test', 'mcp', 'request-timeout.test.ts'));
  });
});
