/** The terminal `AskProvider`: asks a person in the terminal with a pi-tui interface. */
import type { ReadStream, WriteStream } from 'node:tty';
import { matchesKey, type Terminal, wrapTextWithAnsi } from '@mariozechner/pi-tui';
import type { AnsweredBy, ProviderOutcome } from '../contracts/outcome.js';
import type { AskUserRequest } from '../contracts/request.js';
import type { AskProvider, AskProviderContext } from '../engine/provider.js';
import { readAnsweredBy } from '../rules/answered-by.js';
import { isUserInteractionError } from '../rules/errors.js';
import { describeQuorum } from '../rules/quorum.js';
import { AskView } from './ask-view.js';
import { formatCountdown } from './countdown.js';
import { InlineFrame, OverlayFrame, StaticLines } from './frame.js';
import { InlineScreen } from './inline-screen.js';
import { toLiteralText } from './literal-text.js';
import { osUserAnswerer } from './os-user.js';
import {
  checkPreference,
  resolvePreferences,
  type TerminalPreferenceInput,
  type TerminalPreferences,
} from './preferences.js';
import { renderAnswerSummary } from './render-page.js';
import { getSettingsPath, loadTerminalSettings } from './settings-file.js';
import { style } from './style.js';
import { TtyTerminal } from './tty-terminal.js';

/** Options of `createTerminalProvider`: where to draw, the person's preferences, time, Ctrl+C. */
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
  /**
   * Who answers here, recorded as the outcome's `answeredBy`. Default: the OS user
   * (`os.userInfo().username`, channel `'terminal'`), or nobody when the system cannot name
   * them; `false` records nobody. Checked like `service.answer`'s `by`.
   */
  answeredBy?: AnsweredBy | false;
}

/** A provider that asks in the terminal, one ask on screen at a time, the others queued. */
export interface TerminalProvider extends AskProvider {
  /**
   * Resolves when no ask is on screen or waiting its turn. An ask's own UI has always closed
   * (summary drawn, terminal restored) before its outcome is handed out, so this is needed only
   * to wait for asks still queued behind it.
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
  const answerer = readAnswerer(options.answeredBy);
  // One terminal, one question at a time: concurrent asks wait their turn instead of
  // drawing over each other.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    ask(request, ctx) {
      const turn = queue.then(() => askInTerminal(request, ctx, options, local, answerer));
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
  answerer: () => AnsweredBy | undefined,
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
    session.run().then((outcome) => {
      const answeredBy = outcome.status === 'answered' ? answerer() : undefined;
      if (outcome.status !== 'answered' || answeredBy === undefined) resolve(outcome);
      else resolve({ ...outcome, answeredBy });
    }, reject);
  });
}

/** Who answers, once per answer for the default (the OS user is looked up as late as possible). */
function readAnswerer(option: AnsweredBy | false | undefined): () => AnsweredBy | undefined {
  if (option === undefined) return () => osUserAnswerer();
  if (option === false) return () => undefined;
  const fixed = readAnsweredBy(option, 'answeredBy');
  return () => fixed;
}

function openTerminal(options: TerminalProviderOptions): Terminal | undefined {
  const input = options.input ?? (process.stdin as ReadStream);
  const output = options.output ?? (process.stdout as WriteStream);
  if (!input.isTTY || !output.isTTY || typeof input.setRawMode !== 'function') return undefined;
  return new TtyTerminal(input, output);
}

/** One ask on screen: owns the screen, the countdown timer and the abort listener. */
class TerminalSession {
  readonly #screen: InlineScreen;
  readonly #view: AskView;
  readonly #frame: InlineFrame | OverlayFrame;
  readonly #ctx: AskProviderContext;
  readonly #preferences: TerminalPreferences;
  readonly #now: () => number;
  readonly #shownAt: number;
  readonly #label: string;
  #overlayHidden = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  #settle: ((result: SessionEnd) => void) | undefined;
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
    this.#shownAt = this.#now();
    this.#label =
      request.agent === undefined ? 'ask_user' : `ask_user · ${toLiteralText(request.agent)}`;
    const interrupt = options.onInterrupt ?? (() => this.#defaultInterrupt());
    this.#screen = new InlineScreen(terminal, new StaticLines());
    this.#view = new AskView(this.#screen.createHost(), {
      questions: request.questions,
      preferences,
      // Two lines of frame and one spare, so the cursor line never scrolls the frame away.
      getHeight: () => terminal.rows - 3,
      getStatus: () =>
        ctx.deadlineAt === undefined ? undefined : formatCountdown(ctx.deadlineAt - this.#now()),
      getStanding: () => (ctx.quorum === undefined ? [] : describeQuorum(ctx.quorum)),
      onFinish: (outcome) => this.#finish({ outcome }),
      onInterrupt: interrupt,
      onProgress: (answers) => ctx.reportProgress(answers),
    });
    this.#view.focused = true;
    this.#frame =
      preferences.displayMode === 'overlay'
        ? new OverlayFrame(this.#view, this.#label)
        : new InlineFrame(this.#view, this.#label);
    this.#screen.root = this.#frame;
  }

  run(): Promise<ProviderOutcome> {
    const done = new Promise<ProviderOutcome>((resolve, reject) => {
      this.#settle = (result) =>
        'outcome' in result ? resolve(result.outcome) : reject(result.error);
    });
    this.#ctx.signal.addEventListener('abort', this.#onAbort, { once: true });
    if (this.#ctx.deadlineAt !== undefined) {
      this.#timer = setInterval(() => this.#screen.requestRender(), 250);
    }
    this.#screen.start((data) => this.#handleInput(data));
    return done;
  }

  #handleInput(data: string): void {
    if (this.#closing) return;
    const toggle = this.#preferences.overlayToggleKey;
    if (
      this.#preferences.displayMode === 'overlay' &&
      toggle !== null &&
      matchesKey(data, toggle)
    ) {
      this.#overlayHidden = !this.#overlayHidden;
      const notice = new StaticLines();
      notice.lines = [
        style.dim(
          `${this.#label} is waiting · ${toggle} shows the question again (what you typed is kept)`,
        ),
      ];
      this.#screen.root = this.#overlayHidden ? notice : this.#frame;
    } else if (this.#overlayHidden) {
      // While hidden, keys belong to nobody: typing must not answer a question unseen.
      if (matchesKey(data, 'ctrl+c')) this.#view.handleInput(data);
    } else {
      this.#view.handleInput(data);
    }
    this.#screen.requestRender();
  }

  readonly #onAbort = (): void => {
    this.#finish({ error: this.#ctx.signal.reason });
  };

  #defaultInterrupt(): void {
    if (process.listenerCount('SIGINT') > 0) process.kill(process.pid, 'SIGINT');
    else this.#finish({ outcome: { status: 'cancelled', reason: 'user' } });
  }

  /**
   * Synchronous on purpose: the closing summary is drawn and the terminal given back before
   * the outcome is handed out, so nothing this ask draws can land after (and erase) what the
   * host prints next.
   */
  #finish(result: SessionEnd): void {
    if (this.#closing) return;
    this.#closing = true;
    clearInterval(this.#timer);
    this.#ctx.signal.removeEventListener('abort', this.#onAbort);
    try {
      this.#screen.close((width) => this.#summary(result, width));
    } finally {
      // Even if the terminal is gone, the ask still gets its outcome.
      this.#settle?.(result);
    }
  }

  #summary(result: SessionEnd, width: number): string[] {
    if ('error' in result)
      return wrapLine(style.warn(`✖ ${this.#closedBecause(result.error)}`), width);
    const { outcome } = result;
    if (outcome.status === 'answered') {
      return [style.good(`✔ ${this.#label} answered`), ...renderAnswerSummary(this.#view, width)];
    }
    if (outcome.status === 'cancelled') return [style.dim(`✖ ${this.#label} cancelled`)];
    return [style.dim(`✖ ${this.#label} ${outcome.status}`)];
  }

  /** What ended the ask, in plain words: no internal ids, nothing cut off. */
  #closedBecause(cause: unknown): string {
    const name = (cause as { name?: unknown } | null)?.name;
    if (name === 'TimeoutError') {
      return `${this.#label} timed out after ${formatElapsed(this.#now() - this.#shownAt)}`;
    }
    if (isUserInteractionError(cause, 'ASK_SETTLED')) {
      const event = (cause.data as { event?: unknown } | undefined)?.event;
      return `${this.#label} closed: settled elsewhere${typeof event === 'string' ? ` (${toLiteralText(event)})` : ''}`;
    }
    const message = cause instanceof Error ? cause.message : String(cause);
    return `${this.#label} aborted: ${toLiteralText(message)}`;
  }
}

type SessionEnd = { outcome: ProviderOutcome } | { error: unknown };

/** `3s`, `1m 05s`: how long the question was on screen. */
function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}

function wrapLine(text: string, width: number): string[] {
  return wrapTextWithAnsi(text, Math.max(1, width));
}
