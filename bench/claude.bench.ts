/**
 * The Claude adapter's ask per tool call against the Agent SDK's own permission path with an
 * immediate decision, in the same run: `query()` against the same fake Claude Code child
 * (test/claude/fake-claude.ts, the SDK's control protocol on in-memory streams; no network, no
 * CLI), whose one tool call asks for permission. Floor: a `canUseTool` that allows at once.
 * Subject: `createCanUseTool` asking through a service whose provider answers Approve at once
 * (a keyed approval ask, bound to the input digest). Goal <= 1.5x.
 */
import { type CanUseTool, query } from '@anthropic-ai/claude-agent-sdk';
import { createCanUseTool } from '../src/claude/can-use-tool.js';
import { TOOL_APPROVE } from '../src/engine/tool-approval.js';
import { createInteractionService, createScriptedProvider } from '../src/index.js';
import { createFakeClaude } from '../test/claude/fake-claude.js';
import { timeRatio } from './ratio.js';

let calls = 0;
// A fresh tool-use id per run: each one is a new call, so the adapter asks each time.
const claude = createFakeClaude(() => ({
  id: `toolu_bench_${calls++}`,
  name: 'Bash',
  input: { command: 'npm test' },
}));

async function runOnce(canUseTool: CanUseTool): Promise<void> {
  let ran = false;
  for await (const message of query({
    prompt: 'Run the tests.',
    options: { spawnClaudeCodeProcess: claude.spawn, canUseTool },
  })) {
    if (message.type === 'result')
      ran = message.subtype === 'success' && message.result === 'Ran Bash.';
  }
  if (!ran) throw new Error('the tool call was not allowed');
  // One run's log per spawn: keep the harness's memory flat.
  claude.runs.length = 0;
}

const service = createInteractionService();
service.registerProvider(
  createScriptedProvider(
    [
      {
        answer: [{ questionId: 'q1', response: { kind: 'selection', selections: [TOOL_APPROVE] } }],
      },
    ],
    { loop: true, recordCalls: false },
  ),
);
const adapter = createCanUseTool(service);
const immediate: CanUseTool = async (_toolName, input) => ({
  behavior: 'allow',
  updatedInput: input,
});

await timeRatio(
  'claude: createCanUseTool (an approval ask) vs canUseTool allowing at once, through query()',
  1.5,
  () => runOnce(immediate),
  () => runOnce(adapter),
);
await service.close();
