/** The demo agent's script: a small coding task and the five ask_user calls it makes. */
import type { AskUserToolDetails } from '../tool/tool-result.js';

export interface DemoStep {
  /** What the agent says before it asks. */
  thinking: string;
  /** The ask_user input, exactly as a model would write it, from the results so far. */
  input(earlier: readonly AskUserToolDetails[]): Record<string, unknown>;
  /** What the agent does with the result; it never invents a choice the person did not make. */
  react(details: AskUserToolDetails): string;
}

export const DEMO_TASK =
  'Task: add rate limiting to the login endpoint of a small Express app (src/server.ts).';

/** The plan under review, written from what the person chose so far (and what is still open). */
function plan(earlier: readonly AskUserToolDetails[]): string {
  const [strategyStep, endpointStep, messageStep, settingsStep] = earlier;
  const strategy = strategyStep && picked(strategyStep)[0];
  const endpoints = endpointStep ? picked(endpointStep) : [];
  const message = messageStep && typed(messageStep);
  const store = settingsStep && picked(settingsStep, 'q1')[0];
  const limit = settingsStep && picked(settingsStep, 'q2')[0];
  const tests = settingsStep ? picked(settingsStep, 'q3') : [];
  const attempts = limit === undefined ? 5 : Number(limit);
  const testLines = [
    ...(tests.includes('Unit') ? ['unit tests for the window maths'] : []),
    ...(tests.includes('Integration')
      ? [`an integration test that logs in ${attempts + 1} times`]
      : []),
  ];
  return [
    `1. Add src/middleware/rate-limit.ts: ${strategy === undefined ? 'a limiter (strategy still open: TODO)' : `a ${strategy.toLowerCase()} limiter`} keyed by client IP.`,
    `2. Mount it on ${endpoints.length > 0 ? endpoints.join(', ') : 'POST /login'} before the handlers.`,
    `3. Return 429 with a Retry-After header and ${message === undefined ? 'the neutral "Too many attempts, try again later." (TODO: wording)' : `the message ${JSON.stringify(message)}`}.`,
    `4. Keep counters ${store === 'Redis' ? 'in Redis (REDIS_URL)' : store === undefined ? 'in memory (store still open: TODO)' : 'in memory'}; allow ${attempts} attempts per minute per IP${limit === undefined ? ' (default: TODO)' : ''}.`,
    `5. Add ${testLines.length > 0 ? testLines.join(' and ') : 'tests (which kind still open: TODO)'}.`,
    '6. Document the new RATE_LIMIT_* environment variables in README.md.',
    '7. Run npm test and npm run lint; fix whatever they report.',
  ].join('\n');
}

/** The selections of the answer to `questionId`, or `[]`. */
function picked(details: AskUserToolDetails, questionId = 'q1'): string[] {
  const response = details.answers.find((answer) => answer.questionId === questionId)?.response;
  return response?.kind === 'selection' ? response.selections : [];
}

function typed(details: AskUserToolDetails, questionId = 'q1'): string | undefined {
  const response = details.answers.find((answer) => answer.questionId === questionId)?.response;
  return response?.kind === 'freeform' ? response.text : undefined;
}

function noAnswer(details: AskUserToolDetails, fallback: string): string {
  return `No answer (${details.status}${details.reason ? `: ${details.reason}` : ''}), so nothing was chosen. ${fallback}`;
}

export const DEMO_STEPS: DemoStep[] = [
  {
    thinking:
      'Read src/server.ts: POST /login checks passwords with no limit at all. Several strategies fit; the trade-off is the user’s call.',
    input: () => ({
      question: 'Which rate-limiting strategy should the login endpoint use?',
      header: 'Strategy',
      options: [
        {
          title: 'Fixed window',
          description:
            'Count requests per calendar minute. Simplest; allows a burst of 2x the limit around the minute boundary.',
        },
        {
          title: 'Sliding window',
          description:
            'Weighted count over the last 60 seconds. Smooth, no boundary burst; a little more arithmetic per request.',
        },
        {
          title: 'Token bucket',
          description:
            'Tokens refill at a steady rate, bursts up to the bucket size. Best for APIs with legitimate bursts.',
        },
      ],
    }),
    react: (details) =>
      picked(details).length > 0
        ? `Using ${picked(details)[0]} for the limiter.`
        : noAnswer(
            details,
            'I will not pick a strategy myself; I will leave a TODO and ask again later.',
          ),
  },
  {
    thinking: 'Other endpoints take credentials too. Which ones should share the limit?',
    input: () => ({
      question: 'Which endpoints should be rate limited?',
      header: 'Endpoints',
      allowMultiple: true,
      allowComment: true,
      options: [
        { title: 'POST /login', description: 'Password check; the reason for this task.' },
        { title: 'POST /signup', description: 'Account creation; abused for spam sign-ups.' },
        { title: 'POST /password-reset', description: 'Sends e-mail; abused to flood inboxes.' },
        { title: 'GET /api/*', description: 'Everything else under /api; may affect the SPA.' },
        { title: 'GET /health', description: 'Load-balancer probe; usually never limited.' },
      ],
    }),
    react: (details) => {
      const endpoints = picked(details);
      if (endpoints.length === 0)
        return noAnswer(details, 'Limiting POST /login only, as the task says.');
      const response = details.answers[0]?.response;
      const comment = response?.kind === 'selection' ? response.comment : undefined;
      return `Limiting ${endpoints.join(', ')}.${comment === undefined ? '' : ` Noted your comment: ${JSON.stringify(comment)}.`}`;
    },
  },
  {
    thinking: 'A limited client gets a 429. The wording is user-facing, so I should not invent it.',
    input: () => ({
      question: 'What message should a rate-limited client see?',
      header: 'Message',
      context: 'Shown in the login form under the password field, next to a Retry-After countdown.',
    }),
    react: (details) =>
      typed(details) !== undefined
        ? `The 429 body will say ${JSON.stringify(typed(details))}.`
        : noAnswer(
            details,
            'Using the neutral "Too many attempts, try again later." and flagging it in the PR.',
          ),
  },
  {
    thinking: 'Three smaller decisions left; asking them together. You may skip any of them.',
    input: () => ({
      questions: [
        {
          question: 'Where should the counters live?',
          header: 'Store',
          options: [
            {
              title: 'In memory',
              description: 'Per process; resets on deploy; fine for one instance.',
            },
            { title: 'Redis', description: 'Shared by all instances; needs REDIS_URL.' },
          ],
        },
        {
          question: 'How many login attempts per minute per IP?',
          header: 'Limit',
          options: ['5', '10', '30'],
        },
        {
          question: 'Which tests should I add?',
          header: 'Tests',
          allowMultiple: true,
          options: [
            { title: 'Unit', description: 'Window maths, no server.' },
            { title: 'Integration', description: 'Real server, six logins in a row.' },
          ],
        },
      ],
      timeout: 300_000,
    }),
    react: (details) => {
      if (details.status !== 'answered')
        return noAnswer(
          details,
          'Keeping memory, 5/min and unit tests as safe defaults, marked TODO.',
        );
      const parts = ['q1', 'q2', 'q3'].map((id, index) => {
        const names = ['store', 'limit', 'tests'][index];
        const value = picked(details, id);
        return value.length > 0
          ? `${names}: ${value.join(' + ')}`
          : `${names}: skipped (safe default, marked TODO)`;
      });
      return `Settled ${parts.join('; ')}.`;
    },
  },
  {
    thinking: 'Here is the full plan. I will not touch the code until it is approved.',
    input: (earlier) => ({
      question: 'Shall I implement this plan?',
      header: 'Plan',
      context: plan(earlier),
      allowComment: true,
      options: [
        { title: 'Approve', description: 'Implement the plan as written.' },
        { title: 'Revise', description: 'Change the plan first; say what in the comment.' },
        { title: 'Stop', description: 'Do not implement rate limiting now.' },
      ],
      intent: { kind: 'plan-review', approve: 'Approve' },
    }),
    react: (details) => {
      const choice = picked(details)[0];
      if (choice === 'Approve') return 'Approved: implementing the plan now.';
      if (choice !== undefined)
        return `Not approved (${choice}): no code changes; waiting for your revision.`;
      return noAnswer(details, 'Without approval I make no code changes.');
    },
  },
];
