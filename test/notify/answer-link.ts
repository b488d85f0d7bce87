/** A recipient's emailed link, read from a mail and answered over HTTP as the plain HTML form posts it. */

/** The first answer link in a mail's text part. */
export function linkIn(text: string | undefined): string {
  const link = /https?:\/\/\S+\/a\/\S+/.exec(text ?? '')?.[0];
  if (link === undefined) throw new Error(`No answer link in the mail:\n${text}`);
  return link;
}

/**
 * Posts the link's form choosing option `n` (from 1) of the first question, as a browser without
 * JavaScript would: the token from the link, the generic form's `q1.selection` = `option<n>`.
 */
export function answerThroughLink(link: string, n: number): Promise<Response> {
  return fetch(link.split('?')[0] as string, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([
      ['token', new URL(link).searchParams.get('t') as string],
      ['action', 'submit'],
      ['q1.selection', `option${n}`],
    ]).toString(),
  });
}
