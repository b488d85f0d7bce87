/** `node:util` parseArgs for one command, with our own messages for flags it does not know. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { oneLineMessage } from './stderr-text.js';
import { UsageError } from './usage-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses the command's flags and positionals. An unknown flag, a flag missing its value or a
 * switch given a value is a `UsageError` naming the flag (main.ts adds the command's help).
 *
 * @example
 * const { values, positionals } = parseFlags('serve', argv, { store: { type: 'string' } });
 */
export function parseFlags<T extends Options>(
  command: string,
  args: string[],
  options: T,
): ReturnType<
  typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: true }>
> {
  const { tokens } = parseArgs({
    args,
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  // The pointer to the command's help is added where every usage error is printed (main.ts).
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const config = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (config === undefined) {
      throw new UsageError(`${command}: unknown option ${token.rawName}.`);
    }
    if (config.type === 'string' && token.value === undefined) {
      throw new UsageError(`${command}: ${token.rawName} needs a value.`);
    }
    if (config.type === 'string' && token.inlineValue === false && token.value?.startsWith('-')) {
      // parseArgs takes a value that looks like an option only when written --flag=value.
      throw new UsageError(
        `${command}: ${token.rawName} got ${JSON.stringify(token.value)}, which reads as an option; to give a value that starts with a dash, write ${token.rawName}=${token.value}.`,
      );
    }
    if (config.type === 'boolean' && token.inlineValue === true) {
      throw new UsageError(`${command}: ${token.rawName} takes no value.`);
    }
  }
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(`${command}: ${oneLineMessage(error)}.`);
  }
}
