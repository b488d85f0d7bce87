/**
 * A notify channel that posts an ask's card through one Chat SDK adapter: the first card to the
 * recipient's thread, channel or DM, a reminder as a new card in the same thread, and once the
 * ask settles every card it posted edited in place. What it posted it keeps as receipts (the
 * thread and message ids), which the outbox hands back with later notifications.
 */
import type { Adapter, Chat, RawMessage } from 'chat';
import type { NotifyChannel, NotifyReceipt } from '../notify/channel.js';
import type { Notification } from '../notify/notification.js';
import { describe } from '../rules/describe.js';
import { openAskCard, settledAskCard } from './ask-card.js';
import { cardReferenceFor } from './card-reference.js';
import type { ChatPlatform } from './platform.js';

/** A direct message to a platform user: `dm:<platform user id>`. */
const DM_PREFIX = 'dm:';

/** Where a card was posted: the thread to reply and edit in, and the message. */
interface PostedCard {
  threadId: string;
  messageId: string;
}

/**
 * The channel of `platform`'s adapter in `chat`, named after it. A recipient's `address` is a
 * Chat SDK channel id (`slack:C0123`: the card opens a thread there), thread id
 * (`slack:C0123:1700000000.000100`: the card is a reply in it) or `dm:<platform user id>` (a
 * direct message to that person).
 */
export function createChatChannel(chat: Chat, platform: ChatPlatform): NotifyChannel {
  const { name } = platform;
  // The SDK initializes once (and again after a failed try); later calls return at once.
  const adapter = async (): Promise<Adapter> => {
    await chat.initialize();
    return chat.getAdapter(name);
  };
  return {
    name,
    checkAddress(address) {
      const dm = address.startsWith(DM_PREFIX) && address.length > DM_PREFIX.length;
      if (!dm && !address.startsWith(`${name}:`)) {
        throw new TypeError(
          `Expected a ${name} address to be a Chat SDK channel or thread id starting with "${name}:", or "dm:<user id>", got ${describe(address)}.`,
        );
      }
    },
    async send(notification, signal) {
      signal.throwIfAborted();
      const chatAdapter = await adapter();
      const posted = (notification.receipts ?? []).map(readReceipt);
      if (notification.kind === 'settled') {
        const card = settledAskCard(notification.questions, notification.outcome, platform);
        // Every card is edited even when one edit fails (a deleted message); a failure is then
        // thrown so the outbox tries again, and editing a card twice shows the same.
        const edits = await Promise.allSettled(
          posted.map(({ threadId, messageId }) =>
            chatAdapter.editMessage(threadId, messageId, card),
          ),
        );
        const failed = edits.find((edit) => edit.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
        return undefined;
      }
      const { address } = notification.recipient;
      const personal = address.startsWith(DM_PREFIX) || (chatAdapter.isDM?.(address) ?? false);
      const card = openAskCard(
        notification,
        platform,
        cardReferenceFor(notification.askId),
        personal,
      );
      const [first] = posted;
      // A reminder or escalation to someone already sent a card replies in that card's thread.
      const message =
        first === undefined
          ? await postTo(chatAdapter, notification, card)
          : await chatAdapter.postMessage(first.threadId, card);
      return receiptOf(message);
    },
  };
}

/** Posts the first card to a recipient: to their DM, into a thread, or as a channel's new thread. */
async function postTo(
  adapter: Adapter,
  notification: Exclude<Notification, { kind: 'settled' }>,
  card: Parameters<Adapter['postMessage']>[1],
): Promise<RawMessage> {
  const { address } = notification.recipient;
  if (address.startsWith(DM_PREFIX)) {
    if (adapter.openDM === undefined) {
      throw new TypeError(
        `The ${adapter.name} adapter cannot open direct messages; address a channel instead of ${describe(address)}.`,
      );
    }
    const dm = await adapter.openDM(address.slice(DM_PREFIX.length));
    return postAsThread(adapter, adapter.channelIdFromThreadId(dm), card);
  }
  const isChannel = adapter.channelIdFromThreadId(address) === address;
  return isChannel ? postAsThread(adapter, address, card) : adapter.postMessage(address, card);
}

/** A channel's new top-level message, whose own thread later messages reply in. */
function postAsThread(
  adapter: Adapter,
  channelId: string,
  card: Parameters<Adapter['postMessage']>[1],
): Promise<RawMessage> {
  return adapter.postChannelMessage === undefined
    ? adapter.postMessage(channelId, card)
    : adapter.postChannelMessage(channelId, card);
}

function receiptOf(message: RawMessage): NotifyReceipt {
  return { ref: JSON.stringify([message.threadId, message.id]) };
}

function readReceipt(ref: string): PostedCard {
  const parsed: unknown = JSON.parse(ref);
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== 'string' ||
    typeof parsed[1] !== 'string'
  ) {
    throw new TypeError(`Expected a chat receipt [threadId, messageId], got ${describe(ref)}.`);
  }
  return { threadId: parsed[0], messageId: parsed[1] };
}
