/**
 * `@opentelemetry/api`, an optional peer dependency: loaded here, once, for ask-engine/otel
 * only, with an error that names the package and the fix when it is not installed. Nothing
 * else in ask-engine imports it.
 */
async function load(): Promise<typeof import('@opentelemetry/api')> {
  try {
    return await import('@opentelemetry/api');
  } catch (error) {
    throw new Error(
      'ask-engine/otel needs the @opentelemetry/api package, an optional peer dependency of ' +
        'ask-engine: install @opentelemetry/api@^1.9 (and an OpenTelemetry SDK to export what ' +
        'it records), or leave out the `otel` option.',
      { cause: error },
    );
  }
}

export const otelApi = await load();
