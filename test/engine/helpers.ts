/** Test helpers: a provider driven by hand, and a clock that counts its live timers. */
import { SimulatedClock } from 'xstate';
import type { AskProviderContext, AskUserRequest, ProviderOutcome } from '../../src/index.js';

export interface PendingCall {
  request: AskUserRequest;
  ctx: AskProviderContext;
  resolve(outcome: unknown): void;
  reject(error: unknown): void;
}

export function manualProvider() {
  const calls: PendingCall[] = [];
  return {
    calls,
    ask(request: AskUserRequest, ctx: AskProviderContext): Promise<ProviderOutcome> {
      return new Promise((resolve, reject) => {
        calls.push({ request, ctx, resolve: resolve as (value: unknown) => void, reject });
      });
    },
  };
}

/** A simulated clock that also tells how many timers are armed. */
export class CountingClock extends SimulatedClock {
  readonly armed = new Set<unknown>();
  override setTimeout(fn: (...args: unknown[]) => void, timeout: number): number {
    const id: number = super.setTimeout(() => {
      this.armed.delete(id);
      fn();
    }, timeout);
    this.armed.add(id);
    return id;
  }
  override clearTimeout(id: number): void {
    this.armed.delete(id);
    super.clearTimeout(id);
  }
}

export const tick = () => new Promise((resolve) => setImmediate(resolve));

export const yesNo = { question: 'Ship it?', options: ['Yes', 'No'] };
