/**
 * A round of a run (its interruptions, decided) is resumed once: before any host hands back the
 * decided state, it claims the round in the store, so two hosts that both resume it never both
 * run its approved calls. The claim is held while the run goes on and names the round's first
 * ask, so a purge of that ask deletes it (a resume of a purged round fails on its retired ids).
 */
import { type HoldResult, holdWorkClaim } from '../engine/held-claim.js';
import type { InteractionService } from '../engine/service-contract.js';
import { storeOf } from '../engine/store-of.js';
import { canonicalJson, sha256Base64Url } from '../rules/call-digest.js';
import { missingPort, readStorePorts } from '../stores/store-ports.js';

/** How long a round's claim runs unless renewed, by default (ms): renewed every third of it. */
export const DEFAULT_ROUND_LEASE_MS = 15_000;

/** The key of the claim on a round: the run, and the call ids it decided, in any order. */
export function roundKey(runId: string, callIds: readonly string[]): string {
  return `openai-agents.round:${sha256Base64Url(canonicalJson([runId, [...callIds].sort()]))}`;
}

/** Claims the round of `callIds` of `runId` in the store of `service`, for `leaseMs` at a time. */
export function claimRound(
  service: InteractionService,
  runId: string,
  round: readonly { askId: string; callId: string }[],
  leaseMs: number,
): Promise<HoldResult> {
  const store = storeOf(service);
  if (store === undefined) {
    throw new TypeError(
      'Expected a service made by createInteractionService: a run is resumed once by claiming its round in the service’s store, and this service has none to lend.',
    );
  }
  const claims = readStorePorts(store).claims;
  if (claims === undefined) throw missingPort('Continuing an OpenAI Agents run', 'work claims');
  return holdWorkClaim(claims, {
    key: roundKey(
      runId,
      round.map(({ callId }) => callId),
    ),
    serviceId: service.id,
    askId: (round[0] as { askId: string }).askId,
    leaseMs,
  });
}
