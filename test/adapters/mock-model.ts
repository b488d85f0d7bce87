/** A scripted language model for AI SDK loops: `MockLanguageModelV3` from `ai/test`, replying by step. */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

export type Reply = (prompt: LanguageModelV3CallOptions['prompt']) => LanguageModelV3Content[];

/** A tool call the model makes, with its input as the JSON text a provider sends. */
export function callTool(
  toolCallId: string,
  toolName: string,
  input: unknown,
): LanguageModelV3Content {
  return { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) };
}

/** The tool results the model was shown, in order, as text. */
export function toolResultsIn(prompt: LanguageModelV3CallOptions['prompt']): string[] {
  return prompt.flatMap((message) =>
    message.role === 'tool'
      ? message.content.flatMap((part) =>
          part.type === 'tool-result'
            ? [
                part.output.type === 'text' || part.output.type === 'error-text'
                  ? part.output.value
                  : JSON.stringify(part.output),
              ]
            : [],
        )
      : [],
  );
}

/** A model that answers every call (generate or stream) with `reply(prompt)`. */
export function scriptedModel(reply: Reply): MockLanguageModelV3 {
  const finish = (content: LanguageModelV3Content[]) => ({
    unified: content.some((part) => part.type === 'tool-call')
      ? ('tool-calls' as const)
      : ('stop' as const),
    raw: undefined,
  });
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const content = reply(prompt);
      return { content, finishReason: finish(content), usage, warnings: [] };
    },
    doStream: async ({ prompt }) => {
      const content = reply(prompt);
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const [index, part] of content.entries()) {
        if (part.type === 'text') {
          const id = `text-${index}`;
          parts.push(
            { type: 'text-start', id },
            { type: 'text-delta', id, delta: part.text },
            { type: 'text-end', id },
          );
        } else if (part.type === 'tool-call') {
          parts.push(part);
        }
      }
      parts.push({ type: 'finish', finishReason: finish(content), usage });
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
}
