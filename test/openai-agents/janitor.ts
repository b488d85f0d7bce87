/**
 * The agent the OpenAI Agents tests run: a janitor whose `remove_file` tool needs approval,
 * driven by the SDK's ScriptedModel (no model requests) with tracing off. Each call builds a
 * fresh agent, as another process would, over the steps the model is still to take.
 */
import { Agent, setTracingDisabled, tool } from '@openai/agents';
import {
  assistantMessage,
  functionCall,
  ScriptedModel,
  type ScriptedModelInput,
} from '@openai/agents/testing';
import type { AskUserQuestionAnswer, AskUserRequest } from 'ask-engine';

setTracingDisabled(true);

/** What the tool did, in order: the paths it removed. */
export interface Janitor {
  agent: Agent;
  model: ScriptedModel;
  removed: string[];
}

export function janitor(steps: ScriptedModelInput[]): Janitor {
  const removed: string[] = [];
  const removeFile = tool({
    name: 'remove_file',
    description: 'Removes one file.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    },
    strict: true,
    needsApproval: true,
    execute: async (input) => {
      const { path } = input as { path: string };
      removed.push(path);
      return `removed ${path}`;
    },
  });
  const model = new ScriptedModel(steps);
  return { agent: new Agent({ name: 'janitor', model, tools: [removeFile] }), model, removed };
}

/** The model's turn that asks to remove each path, one call each (ids `call-1`, `call-2`, ...). */
export function removes(...paths: string[]): ScriptedModelInput {
  return removesFrom(1, ...paths);
}

/** A later turn's calls: the SDK refuses a call id used again in the run, so they go on from `first`. */
export function removesFrom(first: number, ...paths: string[]): ScriptedModelInput {
  return paths.map((path, index) =>
    functionCall('remove_file', { path }, { callId: `call-${first + index}` }),
  );
}

/** The model's last turn. */
export const done: ScriptedModelInput = [assistantMessage('done')];

/** The answers to an approval question: approve, or reject with a comment. */
export function decide(
  request: AskUserRequest,
  approve: boolean,
  comment?: string,
): AskUserQuestionAnswer[] {
  const intent = request.questions[0]?.intent;
  if (intent?.kind !== 'tool-approval') throw new Error('not a tool approval question');
  return [
    {
      questionId: request.questions[0]?.id ?? 'q1',
      response: {
        kind: 'selection',
        selections: [approve ? intent.approve : intent.reject],
        ...(comment === undefined ? {} : { comment }),
      },
    },
  ];
}
