/** The options of the Claude adapter, checked up front with an error naming the value and the fix. */
import { describe } from '../rules/describe.js';
import { isTimeoutMs, MIN_TIMEOUT_MS } from '../rules/timeout.js';
import type { ClaudeAskOptions } from './decide-tool-call.js';

/** Throws a `TypeError` naming an option that cannot be used, its value and what it must be. */
export function checkClaudeAskOptions(options: ClaudeAskOptions): void {
  const { timeoutMs, inputSchemas } = options;
  if (timeoutMs !== undefined && !isTimeoutMs(timeoutMs)) {
    throw new TypeError(
      `Expected \`timeoutMs\` to be a number of milliseconds, at least ${MIN_TIMEOUT_MS}, got ${describe(timeoutMs)}.`,
    );
  }
  if (inputSchemas !== undefined) {
    for (const [toolName, schema] of Object.entries(inputSchemas)) {
      if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
        throw new TypeError(
          `Expected \`inputSchemas[${JSON.stringify(toolName)}]\` to be a JSON Schema object, got ${describe(schema)}.`,
        );
      }
    }
  }
}
