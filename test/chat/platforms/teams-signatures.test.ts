/**
 * Teams' inbound check through the Teams adapter's own webhook handler, offline: the Teams SDK
 * validates the Bot Framework token (RS256 signature against the published key set, issuer,
 * audience = the app id, expiry with five minutes' tolerance, service URL) against a key this
 * test generates and serves. A request that fails is answered 401 and reaches no action handler.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds, generateSigningKey, signJwt } from '../../support/fake-jwt-signer.js';
import {
  BOT_FRAMEWORK_ISSUER,
  createOfflineTeamsAdapter,
  type FakeTeamsApi,
  startFakeTeamsApi,
} from '../../support/fake-teams-api.js';
import { startWebhookHarness, type WebhookHarness } from './webhook-harness.js';

let teams: FakeTeamsApi;
let harness: WebhookHarness;
const click = {
  userId: '29:1a2b3c-teams-user',
  aadObjectId: '00000000-0000-0000-0000-00000000a11c',
  conversationId: '19:deploys@thread.tacv2',
  activityId: 'activity-1',
  data: { actionId: 'ask-engine', value: 'AAAAAAAAAAAAAAAA.o1' },
};

beforeAll(async () => {
  teams = await startFakeTeamsApi();
  harness = await startWebhookHarness(createOfflineTeamsAdapter(teams));
});
afterAll(() => teams.close());

async function refused(authorization: string | null): Promise<void> {
  const before = harness.actions.length;
  const answer = await harness.deliver(teams.click({ ...click, authorization }));
  expect(answer.status).toBe(401);
  expect(harness.actions.length).toBe(before);
}

describe('a Teams click', () => {
  it('is accepted with a Bot Framework token for this app, with the Teams user id as the platform id', async () => {
    const before = harness.actions.length;
    const answer = await harness.deliver(teams.click(click));
    expect(answer.status).toBe(200);
    expect(harness.actions.slice(before).map((event) => [event.user.userId, event.value])).toEqual([
      [click.userId, 'AAAAAAAAAAAAAAAA.o1'],
    ]);
  });

  it('is refused with 401 without an Authorization header', () => refused(null));

  it('is refused with 401 when the token is signed by a key the Bot Framework did not publish', () =>
    refused(
      `Bearer ${signJwt(generateSigningKey(teams.signingKey.kid), {
        iss: BOT_FRAMEWORK_ISSUER,
        aud: teams.appId,
        serviceurl: teams.serviceUrl,
        exp: epochSeconds() + 600,
      })}`,
    ));

  it('is refused with 401 when the token expired more than five minutes ago', () =>
    refused(`Bearer ${teams.inboundToken({ exp: epochSeconds() - 301 })}`));

  it('is refused with 401 when the token was issued to another app', () =>
    refused(`Bearer ${teams.inboundToken({ aud: 'another-app' })}`));

  it('is refused with 401 when the token names another issuer', () =>
    refused(`Bearer ${teams.inboundToken({ iss: 'https://attacker.example' })}`));

  it('is refused with 401 when the token was issued for another service URL', () =>
    refused(`Bearer ${teams.inboundToken({ serviceurl: 'https://elsewhere.example/' })}`));
});
