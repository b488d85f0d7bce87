/** Pins the public surface: adding or removing an export is a decision, not an accident. */
import { describe, expect, it } from 'vitest';

const dataExports = [
  'ASK_USER_FORM_HINT',
  'AnsweredBySchema',
  'AskAttachmentSchema',
  'AskCancelReasonSchema',
  'AskOutcomeSchema',
  'AskUserAnswersSchema',
  'AskUserFreeformResponseSchema',
  'AskUserHintsSchema',
  'AskUserIntentInputSchema',
  'AskUserIntentSchema',
  'AskUserOptionInputSchema',
  'AskUserOptionSchema',
  'AskUserPlanReviewIntentSchema',
  'AskUserQuestionAnswerSchema',
  'AskUserQuestionEntrySchema',
  'AskUserQuestionSchema',
  'AskUserResponseSchema',
  'AskUserSelectionResponseSchema',
  'AskUserToolApprovalIntentSchema',
  'AskUserToolInputSchema',
  'MAX_ANSWER_BYTES',
  'MAX_ATTACHMENT_BYTES',
  'MAX_FORM_HINT_BYTES',
  'MAX_MULTI_SELECT_OPTIONS',
  'MAX_QUESTIONS',
  'MIN_TIMEOUT_MS',
  'ProviderOutcomeSchema',
  'QuorumResponseSchema',
  'ToolInputEditSchema',
  'USER_INTERACTION_ERROR_CODES',
  'UiFormActionSchema',
  'UiFormAnswerSchema',
  'UiFormChoiceFieldSchema',
  'UiFormChoiceSchema',
  'UiFormFieldSchema',
  'UiFormHintSchema',
  'UiFormMultiChoiceFieldSchema',
  'UiFormSchema',
  'UiFormTextFieldSchema',
  'UserInteractionError',
  'buildAskUserForm',
  'decodeAskUserFormAnswer',
  'encodeAskUserFormAnswer',
  'isUserInteractionError',
  'normalizeAskUserOption',
  'readAskUserForm',
  'utf8ByteLength',
  'validateAskUserAnswers',
];

const engineExports = [
  'TOOL_APPROVE',
  'TOOL_REJECT',
  'askToolApproval',
  'decideToolApproval',
  'toolApprovalBinding',
  'toolApprovalRequest',
  'FormHostDrainedError',
  'REDACTED',
  'askMachine',
  'createAskUserTool',
  'createFormProvider',
  'createInteractionService',
  'createMemoryAskStore',
  'createScriptedProvider',
  'describeQuorum',
  'normalizeAskUserRequest',
  'prepareAskUserArguments',
  'systemClock',
];

describe('public API', () => {
  it('ask-engine/data exports exactly the browser-safe surface', async () => {
    const data = await import('ask-engine/data');
    expect(Object.keys(data).sort()).toEqual([...dataExports].sort());
  });

  it('ask-engine exports the data surface plus the engine', async () => {
    const root = await import('ask-engine');
    expect(Object.keys(root).sort()).toEqual([...dataExports, ...engineExports].sort());
  });

  it('ask-engine/web exports the answer app, its Node server and its provider', async () => {
    const web = await import('ask-engine/web');
    expect(Object.keys(web).sort()).toEqual([
      'createAnswerApp',
      'createWebAnswerServer',
      'createWebProvider',
    ]);
  });

  it('ask-engine/notify exports the channels and the notification contract', async () => {
    const notify = await import('ask-engine/notify');
    expect(Object.keys(notify).sort()).toEqual(
      [
        'MAX_RECEIPT_LENGTH',
        'NOTIFICATION_KINDS',
        'NotificationDeliveryError',
        'NotificationRecipientSchema',
        'NotificationSchema',
        'SettledSummarySchema',
        'WEBHOOK_EVENT_TYPES',
        'createEmailChannel',
        'createNotifyProvider',
        'createNtfyChannel',
        'createWebPushChannel',
        'createWebhookChannel',
        'deliveryIdFor',
        'readNotification',
      ].sort(),
    );
  });

  it('ask-engine/chat exports the chat provider and the platforms it knows', async () => {
    const chat = await import('ask-engine/chat');
    expect(Object.keys(chat).sort()).toEqual(
      [
        'DISCORD_MAX_AGE_SECONDS',
        'createChatProvider',
        'discordPlatform',
        'escapeDiscordMarkdown',
        'escapeGoogleChatText',
        'escapeSlackMrkdwn',
        'gchatPlatform',
        'slackPlatform',
        'teamsPlatform',
        'telegramPlatform',
        'verifyDiscordRequests',
      ].sort(),
    );
  });

  it('ask-engine/mcp exports the elicitation provider, the ask_user server and the task cancel message', async () => {
    const mcp = await import('ask-engine/mcp');
    expect(Object.keys(mcp).sort()).toEqual([
      'DECLINED',
      'DISMISSED',
      'TASK_CANCELLED',
      'createAskUserMcpServer',
      'createElicitationProvider',
      'createElicitationSchemaValidator',
    ]);
  });

  it('ask-engine/sqlite exports the SQLite store factory', async () => {
    const sqlite = await import('ask-engine/sqlite');
    expect(Object.keys(sqlite).sort()).toEqual(['createSqliteAskStore']);
  });

  it('ask-engine/postgres exports the PostgreSQL store factory and its row error', async () => {
    const pg = await import('ask-engine/postgres');
    expect(Object.keys(pg).sort()).toEqual(['CorruptAskRowError', 'createPostgresAskStore']);
  });

  it('keeps the names DESIGN.md makes public', async () => {
    const root = await import('ask-engine');
    expect(root.createInteractionService).toBeTypeOf('function');
    expect(root.createAskUserTool).toBeTypeOf('function');
    expect(root.askMachine.id).toBe('ask');
    expect(Object.keys(root.askMachine.root.states).sort()).toEqual(
      ['aborted', 'answered', 'cancelled', 'deferred', 'pending', 'timedOut'].sort(),
    );
    expect(root.ASK_USER_FORM_HINT).toEqual({ id: 'ask-user.wizard', version: '2' });
    expect([...root.USER_INTERACTION_ERROR_CODES].sort()).toEqual(
      [
        'EMPTY_QUESTIONS',
        'TOO_MANY_QUESTIONS',
        'INVALID_REQUEST',
        'BAD_INTENT',
        'LIMIT_EXCEEDED',
        'NO_PROVIDER',
        'DUPLICATE_PROVIDER',
        'INVALID_ANSWER',
        'ASK_SETTLED',
        'UNKNOWN_INTERACTION',
      ].sort(),
    );
  });

  it('ask-engine/ai-sdk, ask-engine/langgraph and ask-engine/pi export exactly the adapters', async () => {
    const aiSdk = await import('ask-engine/ai-sdk');
    const langgraph = await import('ask-engine/langgraph');
    const pi = await import('ask-engine/pi');
    expect(Object.keys(aiSdk).sort()).toEqual(
      ['ALLOW', 'DENY', 'answerApprovals', 'askUserTool', 'deferAskUser', 'resumeAskUser'].sort(),
    );
    expect(Object.keys(langgraph).sort()).toEqual([
      'approveToolCallInNode',
      'askInNode',
      'askOrInterrupt',
    ]);
    expect(Object.keys(pi).sort()).toEqual(
      ['createAskEngineExtension', 'createPiProvider', 'default'].sort(),
    );
    expect(pi.default).toBeTypeOf('function');
  });

  it('ask-engine/claude exports exactly the Claude Agent SDK adapter', async () => {
    const claude = await import('ask-engine/claude');
    expect(Object.keys(claude).sort()).toEqual(
      [
        'ASK_USER_QUESTION',
        'CLAUDE_TOOL_INPUT_SCHEMAS',
        'createCanUseTool',
        'createPreToolUseHook',
        'decidePreToolUse',
        'readDeferredToolCall',
        'resumeDeferredSession',
        'toolUseAskId',
        'waitForDeferredAsk',
      ].sort(),
    );
  });

  it('ask-engine/openai-agents exports exactly the approvals of a run', async () => {
    const openaiAgents = await import('ask-engine/openai-agents');
    expect(Object.keys(openaiAgents).sort()).toEqual(
      ['RUN_STATE_KIND', 'RunResumeError', 'askRunApprovals', 'resumeRunApprovals'].sort(),
    );
  });

  it('recognises a UserInteractionError from another bundled copy', async () => {
    const { isUserInteractionError, UserInteractionError } = await import('ask-engine');
    // What another copy's UserInteractionError looks like: a plain Error with the shared brand.
    const foreign = Object.assign(new Error('settled elsewhere'), {
      code: 'ASK_SETTLED',
      data: {},
    });
    Object.defineProperty(foreign, Symbol.for('ask-engine.UserInteractionError'), { value: true });
    expect(isUserInteractionError(foreign, 'ASK_SETTLED')).toBe(true);
    expect(foreign instanceof UserInteractionError).toBe(true);
    expect(isUserInteractionError(new Error('plain'))).toBe(false);
  });
});
