/**
 * Hook inputs and permission requests in the shapes Claude Code sends them, written from the
 * type declarations of the installed `@anthropic-ai/claude-agent-sdk` (0.3.328): each one is
 * checked against those types (`satisfies`), so a new SDK version that changes a shape fails
 * the type check here before it fails a user.
 */
import type { PreToolUseHookInput, SDKControlRequest } from '@anthropic-ai/claude-agent-sdk';
import type { AskUserQuestionInput, BashInput } from '@anthropic-ai/claude-agent-sdk/sdk-tools';

const base = {
  hook_event_name: 'PreToolUse',
  session_id: '8f0c6a8e-2d3b-4d5e-9a1b-1c2d3e4f5a6b',
  transcript_path: '/home/dev/.claude/projects/app/8f0c6a8e.jsonl',
  cwd: '/home/dev/app',
  permission_mode: 'default',
} as const;

export const bashInput = {
  command: 'rm -rf build && npm run build',
  description: 'Clean and rebuild',
} satisfies BashInput;

/** A PreToolUse hook input for a Bash call. */
export const preToolUseBash = {
  ...base,
  tool_name: 'Bash',
  tool_input: bashInput,
  tool_use_id: 'toolu_01BashCleanBuild',
} satisfies PreToolUseHookInput;

export const askUserQuestionInput = {
  questions: [
    {
      question: 'Which database should the service use?',
      header: 'Database',
      options: [
        { label: 'PostgreSQL', description: 'A server, for several hosts' },
        { label: 'SQLite', description: 'One file, one host' },
      ],
      multiSelect: false,
    },
    {
      question: 'Which features ship first?',
      header: 'Features',
      options: [
        { label: 'Auth', description: 'Sign-in with passkeys' },
        { label: 'Search', description: 'Full-text search' },
        { label: 'Export', description: 'CSV export', preview: 'id,name\n1,Ada' },
      ],
      multiSelect: true,
    },
  ],
} satisfies AskUserQuestionInput;

/** A PreToolUse hook input for an AskUserQuestion call. */
export const preToolUseAskUserQuestion = {
  ...base,
  tool_name: 'AskUserQuestion',
  tool_input: askUserQuestionInput,
  tool_use_id: 'toolu_01AskDatabase',
} satisfies PreToolUseHookInput;

/** A `can_use_tool` control request, as the SDK hands its fields to `canUseTool`. */
export const canUseToolRequest = {
  type: 'control_request',
  request_id: 'req-7',
  request: {
    subtype: 'can_use_tool',
    tool_name: 'Bash',
    input: bashInput,
    tool_use_id: 'toolu_01BashCleanBuild',
    decision_reason: 'rm is not in the allow list',
    title: 'Claude wants to run rm -rf build && npm run build',
    display_name: 'Run command',
    blocked_path: '/home/dev/app/build',
  },
} satisfies SDKControlRequest;
