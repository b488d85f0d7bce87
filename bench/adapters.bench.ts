/**
 * The framework adapters' own overhead per tool call, against a direct
 * `createAskUserTool().execute` on the same kind of service in the same run. Goal <= 1.5x.
 * - AI SDK: the `askUserTool` execute (the tool-call id becomes the idempotency key, so each
 *   call also looks its key up in the store) against the direct execute with a fresh call id.
 * - LangGraph: `askInNode` (key from thread, task and call order) against `service.ask`.
 * A last line, for scale, shows what the idempotency key costs in the engine itself (`service.ask`
 * with a fresh key against one without): both adapters pay it, since the key is their point.
 */
import type { ToolExecutionOptions } from 'ai';
import { askUserTool } from '../src/ai-sdk/ask-user-tool.js';
import { createInteractionService, createScriptedProvider } from '../src/index.js';
import { askInNode } from '../src/langgraph/ask-in-node.js';
import { createAskUserTool } from '../src/tool/tool.js';
import { yesAnswer, yesNoRequest } from './fixtures.js';
import { timeRatio } from './ratio.js';

function answeringService() {
  const service = createInteractionService();
  service.registerProvider(
    createScriptedProvider([{ answer: yesAnswer }], { loop: true, recordCalls: false }),
  );
  return service;
}

const direct = createAskUserTool(answeringService());
const adapted = askUserTool(answeringService());
const execute = adapted.execute;
if (execute === undefined) throw new Error('askUserTool must have execute');
let n = 0;
const options = (): ToolExecutionOptions => ({ toolCallId: `call-${n++}`, messages: [] });

const check = (text: string) => {
  if (!text.includes('Selected: "Yes"')) throw new Error(`unexpected result: ${text}`);
  return text;
};
await timeRatio(
  'ai-sdk: askUserTool execute vs createAskUserTool().execute',
  1.5,
  async () => check((await direct.execute(`direct-${n++}`, yesNoRequest)).content[0].text),
  async () => check(String(await execute(yesNoRequest, options()))),
);

const plain = answeringService();
const keyed = answeringService();
let task = 0;
await timeRatio(
  'langgraph: askInNode vs service.ask',
  1.5,
  () => plain.ask(yesNoRequest),
  () =>
    askInNode(keyed, yesNoRequest, {
      // A node run's config as LangGraph hands it over: thread, and the task's namespace.
      config: { configurable: { thread_id: 'bench', checkpoint_ns: `node:task-${task++}` } },
    }),
);

const unkeyed = answeringService();
const withKey = answeringService();
await timeRatio(
  'for scale: service.ask with a key vs without',
  undefined,
  () => unkeyed.ask(yesNoRequest),
  () => withKey.ask(yesNoRequest, { key: `key-${n++}` }),
);
