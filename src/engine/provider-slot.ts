/** The one provider of a service: exactly one UI owns a question. */
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import type { AskProvider } from './provider.js';

export class ProviderSlot {
  #provider: AskProvider | undefined;
  #token: object | undefined;

  get current(): AskProvider | undefined {
    return this.#provider;
  }

  /** Registers the provider; a second active one throws `DUPLICATE_PROVIDER`. Returns dispose. */
  register(provider: AskProvider): () => void {
    if (typeof provider !== 'object' || provider === null || typeof provider.ask !== 'function') {
      throw new TypeError(
        `Expected a provider with an ask(request, ctx) method, got ${describe(provider)}.`,
      );
    }
    if (this.#provider !== undefined) {
      throw new UserInteractionError(
        'DUPLICATE_PROVIDER',
        'A provider is already registered for this service; exactly one UI owns a question. Dispose the first registration before registering another.',
      );
    }
    const token = {};
    this.#provider = provider;
    this.#token = token;
    return () => {
      if (this.#token !== token) return;
      this.#provider = undefined;
      this.#token = undefined;
    };
  }

  /** Throws `NO_PROVIDER` when no provider is registered. */
  check(): void {
    if (this.#provider === undefined) {
      throw new UserInteractionError(
        'NO_PROVIDER',
        'No provider is registered, so nobody can be asked. Call service.registerProvider(provider) first.',
      );
    }
  }
}
