/**
 * Why `serve` cannot listen where it was told, in one line naming the flag, the value and the
 * fix, instead of Node's stack trace: the port is taken or privileged, the host is no address
 * of this machine or cannot be resolved.
 */
import { UsageError } from './usage-error.js';

const PICK_PORT = '--port 0 picks a free one';
const PICK_HOST = '127.0.0.1, the default, or 0.0.0.0 for every interface';

/**
 * The `UsageError` (exit code 2) for a failed `listen(port, host)`, or `undefined` for an error
 * that is not about where to listen (then it is nobody's flag, and it is thrown as it is).
 *
 * @example
 * listenProblem(error, '127.0.0.1', 8080)
 * // => UsageError('serve: --port 8080 is in use on 127.0.0.1 (by another server); stop it, or give another port (--port 0 picks a free one).')
 */
export function listenProblem(error: unknown, host: string, port: number): UsageError | undefined {
  const { code } = (error ?? {}) as { code?: unknown };
  const shownHost = JSON.stringify(host);
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError(
        `serve: --port ${port} is in use on ${host} (by another server); stop it, or give another port (${PICK_PORT}).`,
      );
    case 'EACCES':
      return new UsageError(
        `serve: --port ${port} on ${host} needs privileges this process does not have; give a port from 1024 up (${PICK_PORT}).`,
      );
    case 'EADDRNOTAVAIL':
      return new UsageError(
        `serve: --host ${shownHost} is not an address of this machine; give one of its own (${PICK_HOST}).`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new UsageError(
        `serve: --host ${shownHost} cannot be resolved to an address (${code}); give an address or host name of this machine (${PICK_HOST}).`,
      );
    default:
      return undefined;
  }
}
