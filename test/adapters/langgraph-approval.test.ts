/**
 * approveToolCallInNode with the real StateGraph and MemorySaver: a deferred approval stops the
 * graph with LangGraph's HumanInterrupt, and a HumanResponse resumes it: accept, edit (checked
 * against the tool's schema; a refused edit stops the graph again, saying why without quoting
 * it), response (a rejection with its reason); LangChain's HITL decisions resume it too.
 */
import {
  Annotation,
  Command,
  END,
  INTERRUPT,
  isInterrupted,
  MemorySaver,
  START,
  StateGraph,
} from '@langchain/langgraph';
import {
  createInteractionService,
  createScriptedProvider,
  type ToolApprovalCall,
  type ToolApprovalDecision,
  toolApprovalBinding,
} from 'ask-engine';
import { approveToolCallInNode, type ToolApprovalInterrupt } from 'ask-engine/langgraph';
import { describe, expect, it } from 'vitest';

const call: ToolApprovalCall = {
  toolName: 'send_email',
  toolCallId: 'call-9',
  input: { to: 'team@example.com', subject: 'Release' },
  inputSchema: {
    type: 'object',
    properties: { to: { type: 'string', pattern: '@' }, subject: { type: 'string' } },
    required: ['to', 'subject'],
    additionalProperties: false,
  },
};

const State = Annotation.Root({
  decisions: Annotation<ToolApprovalDecision[]>({
    reducer: (a, b) => a.concat(b),
    default: () => [],
  }),
});

let threads = 0;
function setUp() {
  const service = createInteractionService();
  service.registerProvider(createScriptedProvider([{ defer: `inbox-${threads}` }]));
  const graph = new StateGraph(State)
    .addNode('approve', async () => ({ decisions: [await approveToolCallInNode(service, call)] }))
    .addEdge(START, 'approve')
    .addEdge('approve', END)
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: `approval-${threads++}` } };
  return { service, graph, config };
}

function pauseOf(result: unknown): ToolApprovalInterrupt {
  if (!isInterrupted<ToolApprovalInterrupt>(result)) throw new Error('Expected an interrupt.');
  return result[INTERRUPT][0]!.value!;
}

describe('approveToolCallInNode', () => {
  it('stops with a HumanInterrupt naming the action, its args and what the person may do', async () => {
    const { graph, config } = setUp();
    const pause = pauseOf(await graph.invoke({}, config));
    expect(pause.action_request).toEqual({ action: 'send_email', args: call.input });
    expect(pause.config).toEqual({
      allow_accept: true,
      allow_edit: true,
      allow_respond: true,
      allow_ignore: true,
    });
    expect(pause.description).toBe('Allow the tool "send_email" to run with this input?');
  });

  it('approves as proposed on accept', async () => {
    const { graph, config } = setUp();
    await graph.invoke({}, config);
    const final = await graph.invoke(
      new Command({ resume: { type: 'accept', args: null } }),
      config,
    );
    expect(final.decisions).toMatchObject([
      { approved: true, input: call.input, binding: toolApprovalBinding(call) },
    ]);
  });

  it('approves the edited args on edit, with both digests', async () => {
    const { graph, config } = setUp();
    await graph.invoke({}, config);
    const args = { to: 'me@example.com', subject: 'Release' };
    const final = await graph.invoke(
      new Command({ resume: { type: 'edit', args: { action: 'send_email', args } } }),
      config,
    );
    expect(final.decisions).toMatchObject([
      { approved: true, input: args, edited: { fields: ['to'] } },
    ]);
    const [decision] = final.decisions;
    expect(decision?.approved && decision.binding).toBe(
      toolApprovalBinding({ ...call, input: args }),
    );
  });

  it('stops again when the edit breaks the schema or names another tool, without quoting it', async () => {
    const { service, graph, config } = setUp();
    const { askId } = pauseOf(await graph.invoke({}, config));
    const bad = pauseOf(
      await graph.invoke(
        new Command({
          resume: {
            type: 'edit',
            args: { action: 'send_email', args: { to: 'nobody', subject: 'x' } },
          },
        }),
        config,
      ),
    );
    expect(bad.error).toMatch(/at \/to, does not match the pattern @/);
    expect(bad.error).not.toContain('nobody');
    const moved = pauseOf(
      await graph.invoke(
        new Command({ resume: { type: 'edit', args: { action: 'rm', args: call.input } } }),
        config,
      ),
    );
    expect(moved.error).toMatch(/cannot move to another tool/);
    expect((await service.get(askId))?.state).toBe('deferred');
  });

  it('rejects with the response text as the reason, and takes LangChain’s decisions', async () => {
    const first = setUp();
    await first.graph.invoke({}, first.config);
    const rejected = await first.graph.invoke(
      new Command({ resume: { type: 'response', args: 'Not on a Friday' } }),
      first.config,
    );
    expect(rejected.decisions).toMatchObject([
      { approved: false, reason: 'Rejected by the user. Comment: Not on a Friday' },
    ]);
    const second = setUp();
    await second.graph.invoke({}, second.config);
    const args = { to: 'ops@example.com', subject: 'Release' };
    const edited = await second.graph.invoke(
      new Command({
        resume: { decisions: [{ type: 'edit', editedAction: { name: 'send_email', args } }] },
      }),
      second.config,
    );
    expect(edited.decisions).toMatchObject([{ approved: true, input: args }]);
  });
});
