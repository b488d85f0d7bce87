/** The elicitation schema validator: the SDK's checks, without keeping each form's schema for ever. */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { createElicitationSchemaValidator } from 'ask-engine/mcp';
import { describe, expect, it } from 'vitest';
import { bundleProgram } from '../support/program-bundle.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

const schema = {
  type: 'object',
  properties: {
    'q1.selection': {
      type: 'string',
      title: 'Deploy',
      oneOf: [
        { const: 'option1', title: 'Yes' },
        { const: 'option2', title: 'No' },
      ],
    },
    'q1.comment': { type: 'string', maxLength: 5 },
  },
  required: ['q1.selection'],
} as const;

describe('createElicitationSchemaValidator', () => {
  it('accepts a reply that fits the form and refuses one that does not, saying why', () => {
    const validate = createElicitationSchemaValidator().getValidator(schema);

    expect(validate({ 'q1.selection': 'option2' })).toMatchObject({ valid: true });
    expect(validate({ 'q1.selection': 'Yes' })).toMatchObject({
      valid: false,
      errorMessage: expect.stringContaining('q1.selection'),
    });
    expect(validate({ 'q1.selection': 'option1', 'q1.comment': 'too long' })).toMatchObject({
      valid: false,
      errorMessage: expect.stringContaining('must NOT have more than 5 characters'),
    });
  });

  it('keeps no compiled schema once its reply is checked, unlike the SDK’s default validator', async () => {
    // Garbage collection on demand needs --expose-gc: a child process of its own.
    const fixture = await bundleProgram('test/mcp/fixtures/schema-retention.ts');
    const { stdout } = await run(process.execPath, ['--expose-gc', fixture], { cwd: ROOT });

    expect(JSON.parse(stdout)).toEqual({ sdkDefault: true, ours: false });
  });
});
