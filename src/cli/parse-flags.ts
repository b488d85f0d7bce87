/** `node:util` parseArgs for one command, with our own messages for flags it does not know. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses the command's flags and positionals. An unknown flag, a flag missing its value or a
 * switch given a value is a `UsageError` naming the flag and the command's help.
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
  const help = `see ask-engine ${command} --help`;
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const config = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (config === undefined) {
      throw new UsageError(`${command}: unknown option ${token.rawName}; ${help}.`);
    }
    if (config.type === 'string' && token.value === undefined) {
      throw new UsageError(`${command}: ${token.rawName} needs a value; ${help}.`);
    }
    if (config.type === 'boolean' && token.inlineValue === true) {
      throw new UsageError(`${command}: ${token.rawName} takes no value; ${help}.`);
    }
  }
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}
