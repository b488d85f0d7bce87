/**
 * Input JSON Schemas of Claude Code's built-in tools whose calls a person may edit before
 * approving (Approve with edits). Each schema's properties are typed against the tool's input
 * type in the SDK's own declarations (`sdk-tools`), so an SDK version that adds, renames or
 * drops a field fails the type check here instead of refusing edits a user relies on.
 */
import type {
  BashInput,
  FileEditInput,
  FileWriteInput,
  WebFetchInput,
} from '@anthropic-ai/claude-agent-sdk/sdk-tools';

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

/** A closed object schema with one entry for every field of `T`, and `T`'s required fields. */
function toolSchema<T>(
  properties: { [K in keyof Required<T>]: object },
  required: readonly RequiredKeys<T>[],
): object {
  return { type: 'object', properties, required, additionalProperties: false };
}

const text = { type: 'string' };
const nonEmpty = { type: 'string', minLength: 1 };

/**
 * The built-in tools a person may edit by default, by tool name; `inputSchemas` adds others or
 * replaces these.
 */
export const CLAUDE_TOOL_INPUT_SCHEMAS: Readonly<Record<string, object>> = {
  Bash: toolSchema<BashInput>(
    {
      command: { ...nonEmpty, description: 'The command to run' },
      timeout: { type: 'number', minimum: 0, description: 'Milliseconds' },
      description: text,
      run_in_background: { type: 'boolean' },
      dangerouslyDisableSandbox: { type: 'boolean' },
    },
    ['command'],
  ),
  Write: toolSchema<FileWriteInput>({ file_path: nonEmpty, content: text }, [
    'file_path',
    'content',
  ]),
  Edit: toolSchema<FileEditInput>(
    { file_path: nonEmpty, old_string: text, new_string: text, replace_all: { type: 'boolean' } },
    ['file_path', 'old_string', 'new_string'],
  ),
  WebFetch: toolSchema<WebFetchInput>(
    { url: nonEmpty, prompt: text, offset: { type: 'number', minimum: 0 } },
    ['url', 'prompt'],
  ),
};
