/** The provider behind the pi extension: asks in pi's own terminal UI through `ctx.ui.custom()`. */
import type { ExtensionContext } from '@mariozechner/pi-coding-agent';
import type { ProviderOutcome } from '../contracts/outcome.js';
import type { AskProvider } from '../engine/provider.js';
import { AskView, resolvePreferences, type TerminalPreferenceInput } from '../terminal/index.js';

/** Where the provider finds the pi context of the tool call an ask belongs to. */
export type PiContextLookup = (toolCallId: string | undefined) => ExtensionContext | undefined;

/**
 * Shows each ask with the terminal client's question view inside pi (`ctx.ui.custom`). Without
 * a UI (`ctx.hasUI` false: print and JSON modes) every ask is `cancelled` / `unavailable`: no
 * one is there to answer, and nothing is ever answered on the person's behalf.
 */
export function createPiProvider(
  contextOf: PiContextLookup,
  preferences: TerminalPreferenceInput = {},
): AskProvider {
  return {
    async ask(request, ask) {
      const ctx = contextOf(ask.toolCallId);
      if (ctx === undefined || !ctx.hasUI) {
        return {
          status: 'cancelled',
          reason: 'unavailable',
          message:
            ctx === undefined
              ? 'The question did not come from a pi tool call, so there is no pi UI to show it in.'
              : 'pi is running without an interactive UI (print or JSON mode), so nobody can be asked.',
        };
      }
      if (ask.signal.aborted) throw ask.signal.reason;
      const { deadlineAt } = ask;
      return ctx.ui.custom<ProviderOutcome>((tui, _theme, _keybindings, done) => {
        // With a deadline the footer counts down, redrawn each second until the view closes.
        const ticker =
          deadlineAt === undefined ? undefined : setInterval(() => tui.requestRender(), 1000);
        let finished = false;
        const finish = (outcome: ProviderOutcome): void => {
          if (finished) return;
          finished = true;
          clearInterval(ticker);
          ask.signal.removeEventListener('abort', close);
          done(outcome);
        };
        // The ask ended elsewhere (timeout, abort, an answer from another host): close the view.
        // The engine has its outcome already and ignores what this one says.
        const close = (): void =>
          finish({ status: 'cancelled', reason: 'user', message: 'The question was closed.' });
        ask.signal.addEventListener('abort', close, { once: true });
        const view = new AskView(tui, {
          questions: request.questions,
          preferences: resolvePreferences(request.hints, preferences),
          getHeight: () => Math.max(8, tui.terminal.rows - 6),
          // The deadline is on the service's clock; pi's services run on the system clock.
          ...(deadlineAt === undefined
            ? {}
            : { getStatus: () => timeLeft(deadlineAt - Date.now()) }),
          onFinish: finish,
          onInterrupt: () =>
            finish({ status: 'cancelled', reason: 'user', message: 'Interrupted with ctrl+c.' }),
          onProgress: (answers) => ask.reportProgress(answers),
        });
        view.focused = true;
        return view;
      });
    },
  };
}

/** `m:ss left`, or `Ns left` under a minute. */
function timeLeft(remainingMs: number): string {
  if (remainingMs <= 0) return 'time is up';
  const seconds = Math.ceil(remainingMs / 1000);
  if (seconds < 60) return `${seconds}s left`;
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')} left`;
}
