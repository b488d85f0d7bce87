/** The idempotency key of an ask made inside a LangGraph node: stable across the node's re-runs. */
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

// One counter per node run. LangGraph hands a node run one `configurable` object for its whole
// run (getConfig() returns it too) and a new one when it runs the node again after a resume, so
// the n-th ask of a re-run gets the same key as the n-th ask of the first run.
const callsPerRun = new WeakMap<object, number>();

/**
 * `langgraph:<thread id>:<checkpoint namespace>:<n>`. The checkpoint namespace names the node and
 * its task (`node:<task id>`, derived from the checkpoint the task came from), so a node run again
 * after a resume, in this process or a fresh one, gets the same keys, while the same node reached
 * again later in the thread (a loop) gets new ones.
 */
export function nextNodeAskKey(config: LangGraphRunnableConfig): string {
  const configurable = config.configurable;
  const threadId: unknown = configurable?.thread_id;
  const namespace: unknown = configurable?.checkpoint_ns;
  if (configurable === undefined || typeof threadId !== 'string' || threadId === '') {
    throw new TypeError(
      'Expected to run inside a LangGraph node with a `thread_id` (invoke the graph with { configurable: { thread_id } } and a checkpointer); without one an ask cannot be found again after a resume.',
    );
  }
  if (typeof namespace !== 'string' || namespace === '') {
    throw new TypeError(
      'Expected the node config to carry LangGraph’s `checkpoint_ns`; call this from inside a graph node, with the node’s config.',
    );
  }
  const n = callsPerRun.get(configurable) ?? 0;
  callsPerRun.set(configurable, n + 1);
  return `langgraph:${JSON.stringify(threadId)}:${namespace}:${n}`;
}
