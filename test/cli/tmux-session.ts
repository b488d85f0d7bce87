/** Drives a real terminal for tests: a detached tmux session with a fixed size. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cliProgram } from './cli-program.js';

// A private tmux server, so the tests never touch a developer's own sessions.
const SOCKET = `ask-engine-test-${process.pid}`;
const ROOT = resolve(import.meta.dirname, '../..');
/** The CLI from the current sources, bundled (shared with every other test that runs it). */
const CLI = await cliProgram();
let counter = 0;

/**
 * Whether tmux is here. On a developer machine without it the terminal tests are skipped; in
 * CI (`CI` set, where .ci/run installs tmux) a missing tmux is an error, never a silent skip.
 */
export function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    if (process.env.CI) throw new Error(`tmux is required in CI for the terminal tests: ${error}`);
    return false;
  }
}

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
}

let serverStarted = false;
/** Keeps the private server up between sessions, so killing one never races starting the next. */
function startServer(): void {
  if (serverStarted) return;
  tmux('start-server', ';', 'set-option', '-g', 'exit-empty', 'off');
  serverStarted = true;
}

export interface CliRun {
  /** The ask_user input, written to a file and fed on stdin (the UI uses the tty). */
  input?: unknown;
  /** Extra CLI arguments after `ask`. */
  args?: string[];
  command?: 'ask' | 'demo';
  width?: number;
  height?: number;
  env?: Record<string, string>;
  /** The program to run: default the CLI from the sources; an installed bin for package tests. */
  program?: string[];
  /** Working directory for `program`; default the repository. */
  cwd?: string;
  /** Shell commands run first in the same terminal (history the ask must not erase). */
  before?: string;
  /** Leave stdout on the terminal instead of a file, to see what is printed after the ask. */
  stdoutOnTerminal?: boolean;
  /** Pass the input as the JSON argument instead of on stdin, so stdin stays the terminal. */
  inputAsArgument?: boolean;
}

/** One tmux session running the CLI; the shell reports the exit code and the tty mode after. */
export class TmuxCli {
  readonly name: string;
  readonly dir: string;

  constructor(run: CliRun) {
    startServer();
    this.name = `t${++counter}`;
    this.dir = mkdtempSync(join(tmpdir(), 'ask-engine-tmux-'));
    const inputFile = join(this.dir, 'input.json');
    writeFileSync(inputFile, JSON.stringify(run.input ?? {}));
    const env = {
      ASK_ENGINE_SETTINGS: join(this.dir, 'no-settings.json'),
      ...run.env,
    };
    const exports = Object.entries(env)
      .map(([key, value]) => `export ${key}=${shellQuote(value)};`)
      .join(' ');
    const command = run.command ?? 'ask';
    const args = (run.args ?? []).map(shellQuote).join(' ');
    const stdin =
      command !== 'ask'
        ? ''
        : run.inputAsArgument
          ? ` ${shellQuote(JSON.stringify(run.input ?? {}))}`
          : ` - < ${shellQuote(inputFile)}`;
    const stdout = join(this.dir, 'stdout');
    writeFileSync(stdout, '');
    const out = run.stdoutOnTerminal ? '' : ` > ${shellQuote(stdout)}`;
    const after = shellQuote(join(this.dir, 'after'));
    const program = (run.program ?? CLI).map(shellQuote).join(' ');
    const before = run.before === undefined ? '' : `${run.before}; `;
    const script = `${exports} cd ${shellQuote(run.cwd ?? ROOT)}; ${before}${program} ${command}${stdin} ${args}${out}; echo "EXIT=$?" > ${after}; stty -a >> ${after}; echo DONE-DONE; sleep 600`;
    tmux(
      'new-session',
      '-d',
      '-s',
      this.name,
      '-x',
      String(run.width ?? 100),
      '-y',
      String(run.height ?? 30),
      'bash',
      '--norc',
      '--noprofile',
      '-c',
      script,
    );
  }

  /** Types text literally. */
  type(text: string): void {
    tmux('send-keys', '-t', this.name, '-l', text);
  }

  /** Sends named keys: `Enter`, `Escape`, `C-g`, `M-o`, `Down`, `Space`, `Tab`… */
  keys(...keys: string[]): void {
    tmux('send-keys', '-t', this.name, ...keys);
  }

  screen(): string {
    return tmux('capture-pane', '-p', '-t', this.name);
  }

  /** Everything the terminal holds: the scrollback history and the screen. */
  history(): string {
    return tmux('capture-pane', '-p', '-S', '-', '-E', '-', '-t', this.name);
  }

  /** Resizes the terminal, as a person dragging the window would. */
  resize(width: number, height: number): void {
    tmux('resize-window', '-t', this.name, '-x', String(width), '-y', String(height));
  }

  /** Polls the screen until `expected` shows (never a blind sleep); returns that screen. */
  async waitFor(expected: string | RegExp, timeoutMs = 15_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    let screen = '';
    while (Date.now() < until) {
      screen = this.screen();
      if (typeof expected === 'string' ? screen.includes(expected) : expected.test(screen)) {
        return screen;
      }
      await new Promise((r) => setTimeout(r, 40));
    }
    throw new Error(`Timed out waiting for ${String(expected)}; the screen was:\n${screen}`);
  }

  /** Waits for the CLI to exit; returns its exit code, stdout and whether the tty is sane. */
  async result(
    timeoutMs = 15_000,
  ): Promise<{ code: number; stdout: string; ttyRestored: boolean }> {
    await this.waitFor('DONE-DONE', timeoutMs);
    const after = readFileSync(join(this.dir, 'after'), 'utf8');
    const code = Number(/EXIT=(\d+)/.exec(after)?.[1]);
    // Raw mode clears icanon and echo; a restored terminal has both back.
    const ttyRestored = /(^|\s)icanon(\s|$)/m.test(after) && /(^|\s)echo(\s|$)/m.test(after);
    return { code, stdout: readFileSync(join(this.dir, 'stdout'), 'utf8'), ttyRestored };
  }

  /** The pid of the CLI process (the shell's child). */
  cliPid(): number {
    const shell = tmux('display-message', '-p', '-t', this.name, '#{pane_pid}').trim();
    const child = execFileSync('ps', ['-o', 'pid=', '--ppid', shell], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)[0];
    return Number(child);
  }

  paneTitle(): string {
    return tmux('display-message', '-p', '-t', this.name, '#{pane_title}').trim();
  }

  /** Ends the session and removes its folder (its input, stdout and exit report). */
  kill(): void {
    try {
      tmux('kill-session', '-t', this.name);
    } catch {
      // Already gone.
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Ends the private server and everything this file's sessions used (its socket). */
export function killServer(): void {
  serverStarted = false;
  try {
    tmux('kill-server');
  } catch {
    // No server left.
  }
  // tmux leaves its socket file behind; one per test run would pile up in /tmp.
  const uid = process.getuid?.();
  if (uid !== undefined) {
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${uid}`, SOCKET), { force: true });
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
