/**
 * The run an approval ask belongs to, kept with the ask in the store (its attachment): the
 * run id, the sticky and edit choices it was asked with, and the SDK's serialized `RunState`,
 * versioned by the state's schema version so a host refuses a state its SDK cannot read.
 */
import { Agent, RunContext, RunState } from '@openai/agents';
import type { AskAttachment } from '../contracts/attachment.js';
import type { AskInfo } from '../engine/service-contract.js';
import type { AlwaysOption, AnyAgent } from './approval-call.js';
import { checkAlways } from './run-options.js';

/** The attachment kind of a run's saved state. */
export const RUN_STATE_KIND = 'openai-agents.run-state';

/** What every ask of one interrupted run keeps. */
export interface SavedRun {
  runId: string;
  allowEdits: boolean;
  always: AlwaysOption;
  /** The SDK's run-state schema version of `state` (its `$schemaVersion`). */
  schemaVersion: string;
  /** The serialized `RunState`, as `toString()` wrote it. */
  state: string;
}

/**
 * The attachment of a run's asks. The state's JSON is written into the attachment's as it is
 * (not quoted again), with the run's choices beside it.
 */
export function runAttachment<TContext, TAgent extends AnyAgent>(
  runId: string,
  allowEdits: boolean,
  always: AlwaysOption,
  state: RunState<TContext, TAgent>,
): AskAttachment {
  const json = state.toJSON();
  const choices = JSON.stringify({ runId, allowEdits, always });
  return {
    kind: RUN_STATE_KIND,
    version: json.$schemaVersion,
    data: `${choices.slice(0, -1)},"state":${JSON.stringify(json)}}`,
  };
}

/** Why a run cannot be resumed from an ask; `data.askId` names the ask. */
export class RunResumeError extends Error {
  override name = 'RunResumeError';
  constructor(
    message: string,
    readonly askId: string,
  ) {
    super(message);
  }
}

/** The saved run of `ask`; throws `RunResumeError` naming the ask when it holds none. */
export function readSavedRun(ask: AskInfo): SavedRun {
  const { attachment } = ask;
  if (attachment?.kind !== RUN_STATE_KIND) {
    throw new RunResumeError(
      `Ask ${ask.askId} holds no OpenAI Agents run (its attachment is ${attachment === undefined ? 'absent' : `of kind ${JSON.stringify(attachment.kind)}`}); give the id of an ask that askRunApprovals started.`,
      ask.askId,
    );
  }
  const unreadable = (why: string) =>
    new RunResumeError(
      `Ask ${ask.askId} holds an OpenAI Agents run that cannot be read (${why}); it cannot be resumed.`,
      ask.askId,
    );
  let saved: Record<string, unknown>;
  try {
    saved = JSON.parse(attachment.data) as Record<string, unknown>;
  } catch (error) {
    throw unreadable(`not JSON: ${(error as Error).message}`);
  }
  const { runId, allowEdits, always, state } = saved ?? {};
  if (typeof runId !== 'string' || runId === '') throw unreadable('no run id');
  if (typeof allowEdits !== 'boolean') throw unreadable('no allowEdits flag');
  if (typeof state !== 'object' || state === null) throw unreadable('no run state');
  let checkedAlways: AlwaysOption;
  try {
    checkedAlways = checkAlways(always);
  } catch (error) {
    throw unreadable((error as Error).message);
  }
  return {
    runId,
    allowEdits,
    always: checkedAlways,
    schemaVersion: attachment.version,
    state: JSON.stringify(state),
  };
}

/**
 * The run's `RunState`, restored for `agent` (the agent the run started with, with the same
 * tools). A state whose schema this SDK cannot read (saved by a newer SDK) is refused with an
 * error that names both versions and the fix; the SDK's own refusals are passed on with the ask.
 */
export async function restoreRunState<TAgent extends AnyAgent>(
  askId: string,
  agent: TAgent,
  saved: SavedRun,
): Promise<RunState<unknown, TAgent>> {
  const own = ownSchemaVersion();
  if (saved.schemaVersion !== own && !readsSchema(saved.schemaVersion, own)) {
    throw new RunResumeError(
      `The run of ask ${askId} was saved by an OpenAI Agents SDK writing run-state schema ${saved.schemaVersion}, which the SDK here (schema ${own}) cannot read. Resume it on a host with that SDK version or later (upgrade @openai/agents here).`,
      askId,
    );
  }
  try {
    return await RunState.fromString(agent, saved.state);
  } catch (error) {
    throw new RunResumeError(
      `The run of ask ${askId} (run-state schema ${saved.schemaVersion}) could not be restored here (schema ${own}): ${(error as Error).message}`,
      askId,
    );
  }
}

/** Whether a reader of schema `own` reads `saved`: the same major version, not newer. */
function readsSchema(saved: string, own: string): boolean {
  const [savedMajor, savedMinor] = saved.split('.').map(Number);
  const [ownMajor, ownMinor] = own.split('.').map(Number);
  return (
    savedMajor === ownMajor &&
    savedMinor !== undefined &&
    ownMinor !== undefined &&
    Number.isInteger(savedMinor) &&
    savedMinor <= ownMinor
  );
}

let schemaVersion: string | undefined;

/** The run-state schema version the installed SDK writes, read once from a state it serializes. */
function ownSchemaVersion(): string {
  schemaVersion ??= new RunState(
    new RunContext({}),
    '',
    new Agent({ name: 'probe' }),
    null,
  ).toJSON().$schemaVersion;
  return schemaVersion;
}
