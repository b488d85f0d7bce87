/**
 * `@opentelemetry/api` is an optional peer: the engine never loads it, and `ask-engine/otel`
 * without it fails with an error that names the package. A resolve hook makes the package
 * missing for one child process, as for a user who never installed it.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

const hidePackage = `data:text/javascript,${encodeURIComponent(`
  import { register } from 'node:module';
  register('data:text/javascript,' + encodeURIComponent(\`
    export async function resolve(specifier, context, next) {
      if (specifier === '@opentelemetry/api' || specifier.startsWith('@opentelemetry/api/')) {
        throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: 'ERR_MODULE_NOT_FOUND' });
      }
      return next(specifier, context);
    }\`));
`)}`;

function withoutOtelApi(script: string) {
  return run(
    process.execPath,
    [
      '--conditions=ask-engine:source',
      '--import',
      'tsx',
      '--import',
      hidePackage,
      '--input-type=module',
      '-e',
      script,
    ],
    { cwd: root },
  );
}

describe('without @opentelemetry/api installed', () => {
  it('asks as before when the otel option is not used', async () => {
    const { stdout } = await withoutOtelApi(`
      const { createInteractionService, createScriptedProvider } = await import('ask-engine');
      const service = createInteractionService();
      service.registerProvider(createScriptedProvider([{ cancel: 'user' }]));
      console.log(JSON.stringify(await service.ask({ question: 'Ship it?', options: ['Yes', 'No'] })));
      await service.close();
      await import('@opentelemetry/api').then(() => console.log('found'), () => console.log('missing'));
    `);
    expect(stdout.trim().split('\n')).toEqual([
      JSON.stringify({ status: 'cancelled', reason: 'user' }),
      'missing',
    ]);
  }, 60_000);

  it('refuses ask-engine/otel with an error that names the package and the fix', async () => {
    const { stdout } = await withoutOtelApi(`
      try {
        await import('ask-engine/otel');
        console.log('imported');
      } catch (error) {
        console.log(error.message);
      }
    `);
    expect(stdout.trim()).toBe(
      'ask-engine/otel needs the @opentelemetry/api package, an optional peer dependency of ask-engine: install @opentelemetry/api@^1.9 (and an OpenTelemetry SDK to export what it records), or leave out the `otel` option.',
    );
  }, 60_000);
});
