/** The terminal `AskProvider`: asks a person in the terminal with a pi-tui interface. */
import type { ReadStream, WriteStream } from 'node:tty';
import { matchesKey, type OverlayHandle, type Terminal, TUI } from '@mariozechner/pi-tui';
import type { ProviderOutcome } from '../contracts/outcome.js';
import type { AskUserRequest } from '../contracts/request.js';
import type { AskProvider, AskProviderContext } from '../engine/provider.js';
import { AskView } from './ask-view.js';
import { formatCountdown } from './countdown.js';
import { InlineFrame, OverlayFrame, StaticLines } from './frame.js';
import { toLiteralText } from './literal-text.js';
import {
  checkPreference,
  resolvePreferences,
  type TerminalPreferenceInput,
  type TerminalPreferences,
} from './preferences.js';
import { getSettingsPath, loadTerminalSettings } from './settings-file.js';
import { style } from './style.js';
import { TtyTerminal } from './tty-terminal.js';

export interface TerminalProviderOptions {
  /** Keys come from here; default `process.stdin`. */
  input?: ReadStream;
  /** The interface is drawn here; default `process.stdout`. */
  output?: WriteStream;
  /** Any pi-tui `Terminal` instead of `input`/`output` (tests, hosts with their own). */
  terminal?: Terminal;
  /** The person's preferences (CLI flags); they win over the settings file and over hints. */
  preferences?: TerminalPreferenceInput;
  /** The settings file to read; `false` reads none. Default: `getSettingsPath()`. */
  settingsPath?: string | false;
  /** The clock `ctx.deadlineAt` is on, for the countdown. Default `Date.now`. */
  now?: () => number;
  /**
   * Ctrl+C while asking (raw mode turns it into a key). Default: raise SIGINT when the process
   * handles it, so the host's usual interrupt path runs; otherwise cancel as the person.
   */
  onInterrupt?: () => void;
}

/** Grace for the last frame (the summary) to reach the terminal before the UI stops. */
const LAST_FRAME_MS = 40;

export interface TerminalProvider extends AskProvider {
  /**
   * Resolves when no ask is on screen and the terminal is restored. The service settles an ask
   * (abort, timeout) before the UI has closed; a host about to exit waits for this.
   */
  whenIdle(): Promise<void>;
}

/**
 * Creates the terminal provider. Reads the settings file now, so a malformed one is reported
 * when the host starts, naming the file and the key, rather than in the middle of an ask.
 * Without an interactive terminal every ask is `cancelled` / `unavailable` at once.
 *
 * @example
 * const service = createInteractionService();
 * service.registerProvider(createTerminalProvider({ preferences: { displayMode: 'overlay' } }));
 */
export function createTerminalProvider(options: TerminalProviderOptions = {}): TerminalProvider {
  const fromFile =
    options.settingsPath === false
      ? {}
      : loadTerminalSettings(options.settingsPath ?? getSettingsPath());
  for (const [key, value] of Object.entries(options.preferences ?? {})) {
    const problem = checkPreference(key, value);
    if (problem !== undefined) throw new TypeError(`Terminal preference "${key}": ${problem}.`);
  }
  const local: TerminalPreferenceInput = { ...fromFile, ...options.preferences };
  // One terminal, one question at a time: concurrent asks wait their turn instead of
  // drawing over each other.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    ask(request, ctx) {
      const turn = queue.then(() => askInTerminal(request, ctx, options, local));
      queue = turn.catch(() => {});
      return turn;
    },
    async whenIdle() {
      let seen: Promise<unknown>;
      do {
        seen = queue;
        await seen;
      } while (seen !== queue);
    },
  };
}

function askInTerminal(
  request: AskUserRequest,
  ctx: AskProviderContext,
  options: TerminalProviderOptions,
  local: TerminalPreferenceInput,
): Promise<ProviderOutcome> {
  if (ctx.signal.aborted) return Promise.reject(ctx.signal.reason);
  const terminal = options.terminal ?? openTerminal(options);
  if (terminal === undefined) {
    return Promise.resolve({
      status: 'cancelled',
      reason: 'unavailable',
      message: 'No interactive terminal to ask on (no TTY).',
    });
  }
  const preferences = resolvePreferences(request.hints, local);
  return new Promise((resolve, reject) => {
    const session = new TerminalSession(terminal, request, ctx, options, preferences);
    session.run().then(resolve, reject);
  });
}

function openTerminal(options: TerminalProviderOptions): Terminal | undefined {
  const input = options.input ?? (process.stdin as ReadStream);
  const output = options.output ?? (process.stdout as WriteStream);
  if (!input.isTTY || !output.isTTY || typeof input.setRawMode !== 'function') return undefined;
  return new TtyTerminal(input, output);
}

/** One ask on screen: owns the TUI, the countdown timer and the abort listener. */
class TerminalSession {
  readonly #tui: TUI;
  readonly #view: AskView;
  readonly #ctx: AskProviderContext;
  readonly #preferences: TerminalPreferences;
  readonly #now: () => number;
  readonly #base = new StaticLines();
  #overlay: OverlayHandle | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #settle: ((result: { outcome: ProviderOutcome } | { error: unknown }) => void) | undefined;
  #closing = false;

  constructor(
    terminal: Terminal,
    request: AskUserRequest,
    ctx: AskProviderContext,
    options: TerminalProviderOptions,
    preferences: TerminalPreferences,
  ) {
    this.#ctx = ctx;
    this.#preferences = preferences;
    this.#now = options.now ?? Date.now;
    this.#tui = new TUI(terminal, false);
    const interrupt = options.onInterrupt ?? (() => this.#defaultInterrupt());
    this.#view = new AskView(this.#tui, {
      questions: request.questions,
      preferences,
      // Two lines of frame and one spare, so the cursor line never scrolls the frame away.
      getHeight: () => terminal.rows - 3,
      getStatus: () =>
        ctx.deadlineAt === undefined ? undefined : formatCountdown(ctx.deadlineAt - this.#now()),
      onFinish: (outcome) => this.#finish({ outcome }),
      onInterrupt: interrupt,
      onProgress: (answers) => ctx.reportProgress(answers),
    });
    this.#view.focused = true;
    const label =
      request.agent === undefined ? 'ask_user' : `ask_user · ${toLiteralText(request.agent)}`;
    if (preferences.displayMode === 'overlay') {
      this.#tui.addChild(this.#base);
      this.#overlay = this.#tui.showOverlay(new OverlayFrame(this.#view, label), {
        width: '100%',
        anchor: 'top-left',
        nonCapturing: true,
      });
    } else {
      this.#tui.addChild(new InlineFrame(this.#view, label));
    }
  }

  run(): Promise<ProviderOutcome> {
    const done = new Promise<ProviderOutcome>((resolve, reject) => {
      this.#settle = (result) =>
        'outcome' in result ? resolve(result.outcome) : reject(result.error);
    });
    this.#tui.addInputListener((data) => {
      this.#handleInput(data);
      return { consume: true };
    });
    this.#ctx.signal.addEventListener('abort', this.#onAbort, { once: true });
    if (this.#ctx.deadlineAt !== undefined) {
      this.#timer = setInterval(() => this.#tui.requestRender(), 250);
    }
    this.#tui.start();
    return done;
  }

  #handleInput(data: string): void {
    if (this.#closing) return;
    const overlay = this.#overlay;
    const toggle = this.#preferences.overlayToggleKey;
    if (overlay !== undefined && toggle !== null && matchesKey(data, toggle)) {
      const hide = !overlay.isHidden();
      overlay.setHidden(hide);
      this.#base.lines = hide
        ? [
            style.dim(
              `ask_user is waiting · ${toggle} shows the question again (what you typed is kept)`,
            ),
          ]
        : [];
    } else if (overlay?.isHidden()) {
      // While hidden, keys belong to nobody: typing must not answer a question unseen.
      if (matchesKey(data, 'ctrl+c')) this.#view.handleInput(data);
    } else {
      this.#view.handleInput(data);
    }
    this.#tui.requestRender();
  }

  readonly #onAbort = (): void => {
    this.#finish({ error: this.#ctx.signal.reason });
  };

  #defaultInterrupt(): void {
    if (process.listenerCount('SIGINT') > 0) process.kill(process.pid, 'SIGINT');
    else this.#finish({ outcome: { status: 'cancelled', reason: 'user' } });
  }

  async #finish(result: { outcome: ProviderOutcome } | { error: unknown }): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    clearInterval(this.#timer);
    this.#ctx.signal.removeEventListener('abort', this.#onAbort);
    this.#overlay?.hide();
    this.#tui.clear();
    this.#base.lines = this.#summary(result);
    this.#tui.addChild(this.#base);
    this.#tui.requestRender();
    await new Promise((resolve) => setTimeout(resolve, LAST_FRAME_MS));
    this.#tui.stop();
    this.#settle?.(result);
  }

  #summary(result: { outcome: ProviderOutcome } | { error: unknown }): string[] {
    if ('error' in result) {
      const reason = result.error instanceof Error ? result.error.message : String(result.error);
      return [style.warn(`■ ask_user closed: ${toLiteralText(reason)}`)];
    }
    const { outcome } = result;
    if (outcome.status !== 'answered') return [style.dim(`✖ ask_user ${outcome.status}`)];
    return [
      style.good('✔ ask_user answered'),
      ...this.#view.summary().map((line) => `  ${toLiteralText(line)}`),
    ];
  }
}
