/** Turns SIGINT and SIGTERM into an abort signal, so a pending ask ends as `aborted`. */

export interface Interrupts {
  readonly signal: AbortSignal;
  /** The signal that arrived, if one did. */
  readonly received: 'SIGINT' | 'SIGTERM' | undefined;
  dispose(): void;
}

/**
 * While installed, the process does not die on SIGINT/SIGTERM: the ask is aborted with the
 * signal as its cause, the terminal is restored, the outcome printed, and the exit code says
 * which signal it was.
 *
 * @example
 * const interrupts = listenForInterrupts();
 * await tool.execute('cli', params, interrupts.signal);
 * interrupts.dispose();
 */
export function listenForInterrupts(): Interrupts {
  const controller = new AbortController();
  let received: 'SIGINT' | 'SIGTERM' | undefined;
  const on = (name: 'SIGINT' | 'SIGTERM') => () => {
    received ??= name;
    controller.abort(new Error(`interrupted by ${name}`));
  };
  const onInt = on('SIGINT');
  const onTerm = on('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}
