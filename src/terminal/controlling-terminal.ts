/** Finds an interactive terminal to ask on, even when stdin or stdout is redirected. */
import { openSync } from 'node:fs';
import { isatty, ReadStream, WriteStream } from 'node:tty';

/** An interactive terminal's input and output streams, and how to let them go. */
export interface TerminalStreams {
  /** Where keys are read from. */
  input: ReadStream;
  /** Where the interface is drawn. */
  output: WriteStream;
  /** Releases streams this module opened; does nothing for the process's own. */
  close(): void;
}

/**
 * The process's stdin/stdout when both are TTYs; else the controlling terminal (`/dev/tty`),
 * the way `fzf` or `git` ask while their output is piped; `undefined` when there is none
 * (a CI job, a daemon, a detached session): the caller then reports `unavailable`.
 *
 * @example
 * const streams = openInteractiveTerminal();
 * const provider = createTerminalProvider(streams ? { input: streams.input, output: streams.output } : { interactive: false });
 */
export function openInteractiveTerminal(): TerminalStreams | undefined {
  if (process.stdin.isTTY && process.stdout.isTTY) {
    return {
      input: process.stdin as ReadStream,
      output: process.stdout as WriteStream,
      close: () => {},
    };
  }
  if (process.platform === 'win32') return undefined;
  let inFd: number;
  let outFd: number;
  try {
    inFd = openSync('/dev/tty', 'r');
    outFd = openSync('/dev/tty', 'w');
  } catch {
    return undefined;
  }
  if (!isatty(inFd) || !isatty(outFd)) return undefined;
  const input = new ReadStream(inFd);
  const output = new WriteStream(outFd);
  return {
    input,
    output,
    close: () => {
      input.destroy();
      output.destroy();
    },
  };
}
