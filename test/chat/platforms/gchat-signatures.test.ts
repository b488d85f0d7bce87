/**
 * Google Chat's inbound check through the Google Chat adapter's own webhook handler, offline: a
 * "project number" Chat app, whose webhook tokens are RS256 JWTs from
 * chat@system.gserviceaccount.com with the project number as audience, checked by the adapter
 * against the certificates it fetches (served here, with a key this test generates). A request
 * that fails is answered 401 and reaches no action handler.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOfflineGoogleChatAdapter,
  type FakeGoogleChatApi,
  routeGoogleCertsTo,
  startFakeGoogleChatApi,
} from '../../support/fake-gchat-api.js';
import { epochSeconds, generateSigningKey, signJwt } from '../../support/fake-jwt-signer.js';
import { startWebhookHarness, type WebhookHarness } from './webhook-harness.js';

let google: FakeGoogleChatApi;
let harness: WebhookHarness;
let restoreFetch: () => void;
const click = {
  userName: 'users/112233445566778899',
  spaceName: 'spaces/AAAAdeploys',
  messageName: 'spaces/AAAAdeploys/messages/message-1',
  parameters: { actionId: 'ask-engine', value: 'AAAAAAAAAAAAAAAA.o1' },
};

beforeAll(async () => {
  google = await startFakeGoogleChatApi();
  restoreFetch = routeGoogleCertsTo(google);
  harness = await startWebhookHarness(createOfflineGoogleChatAdapter(google));
});
afterAll(async () => {
  restoreFetch();
  await google.close();
});

async function refused(authorization: string | null): Promise<void> {
  const before = harness.actions.length;
  const answer = await harness.deliver(google.click({ ...click, authorization }));
  expect(answer.status).toBe(401);
  expect(harness.actions.length).toBe(before);
}

describe('a Google Chat click', () => {
  it('is accepted with a token Google Chat signed for this project, with the user resource name as the platform id', async () => {
    const before = harness.actions.length;
    const answer = await harness.deliver(google.click(click));
    expect(answer.status).toBe(200);
    expect(harness.actions.slice(before).map((event) => [event.user.userId, event.value])).toEqual([
      [click.userName, 'AAAAAAAAAAAAAAAA.o1'],
    ]);
  });

  it('is refused with 401 without an Authorization header', () => refused(null));

  it('is refused with 401 when the token is signed by a key Google did not publish', () =>
    refused(
      `Bearer ${signJwt(generateSigningKey(google.signingKey.kid), {
        iss: 'chat@system.gserviceaccount.com',
        aud: google.projectNumber,
        iat: epochSeconds(),
        exp: epochSeconds() + 600,
      })}`,
    ));

  it('is refused with 401 when the token has expired', () =>
    refused(
      `Bearer ${google.inboundToken({ iat: epochSeconds() - 7_200, exp: epochSeconds() - 3_600 })}`,
    ));

  it('is refused with 401 when the token was issued to another project', () =>
    refused(`Bearer ${google.inboundToken({ aud: '999999' })}`));

  it('is refused with 401 when the token was not issued by Google Chat', () =>
    refused(`Bearer ${google.inboundToken({ iss: 'someone@example.iam.gserviceaccount.com' })}`));
});
