/**
 * Credentials never reach a terminal: a `--store postgres://user:password@host/db?password=…`
 * URL (or a `--base-url` with a password) is named with its secrets masked, in the URL itself
 * and in whatever a driver's message quotes of it.
 */

/** What stands in for a secret in a message. */
const MASK = '***';

/**
 * `text` with every secret of `url` masked: the password of its user info and any `password=`
 * query parameter, as written and percent-decoded. Every message that names a store (or a URL
 * given on the command line) passes through here, so it can quote the URL and a driver's error.
 *
 * @example
 * withoutCredentials('cannot reach postgres://ana:pw@db/app', 'postgres://ana:pw@db/app')
 * // => 'cannot reach postgres://ana:***@db/app'
 */
export function withoutCredentials(text: string, url: string): string {
  let masked = text;
  // Longest first: a secret that holds another is masked whole.
  for (const secret of secretsOf(url).sort((a, b) => b.length - a.length)) {
    masked = masked.replaceAll(secret, MASK);
  }
  return masked;
}

/** The secrets a URL holds, each as written and as decoded; none for a plain path. */
function secretsOf(url: string): string[] {
  const written: string[] = [];
  const userInfo = /^[a-z][a-z\d+.-]*:\/\/([^/?#]*)@/i.exec(url)?.[1];
  const colon = userInfo?.indexOf(':') ?? -1;
  if (userInfo !== undefined && colon >= 0) written.push(userInfo.slice(colon + 1));
  for (const match of url.matchAll(/[?&]password=([^&#]*)/gi)) written.push(match[1] ?? '');
  const secrets = new Set<string>();
  for (const secret of written) {
    secrets.add(secret);
    secrets.add(decoded(secret));
  }
  secrets.delete('');
  return [...secrets];
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}
