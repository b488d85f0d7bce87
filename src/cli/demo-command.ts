/** `ask-engine demo`: a scripted agent loop that asks every kind of question in this terminal. */
import type { AskAuditEvent } from '../engine/audit.js';
import type { AskUserToolDetails } from '../tool/tool-result.js';
import { formatAuditTrail } from './audit-trail.js';
import { DEMO_STEPS, DEMO_TASK } from './demo-script.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { DEMO_HELP } from './help.js';
import { listenForInterrupts } from './interrupts.js';
import { parseFlags } from './parse-flags.js';
import { preferenceFlagOptions, readPreferenceFlags } from './preference-flags.js';
import { setUpAsking } from './terminal-setup.js';
import { UsageError } from './usage-error.js';

/**
 * Runs the demo and returns the exit code: 0 when it ran through (whatever was answered),
 * 130/143 when interrupted.
 *
 * @example
 * process.exitCode = await runDemoCommand([]);
 */
export async function runDemoCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('demo', argv, {
    help: { type: 'boolean', short: 'h' },
    ...preferenceFlagOptions,
  });
  if (values.help) {
    process.stdout.write(DEMO_HELP);
    return EXIT.answered;
  }
  if (positionals.length > 0) {
    throw new UsageError(`demo takes no arguments, got ${JSON.stringify(positionals[0])}.`);
  }
  const asking = await setUpAsking(readPreferenceFlags(values), { agent: 'demo-agent' });
  const interrupts = listenForInterrupts();
  const trail: AskAuditEvent[] = [];
  const subscription = asking.service.events$.subscribe((event) => trail.push(event));
  const print = (text = '') => process.stdout.write(`${text}\n`);
  try {
    print(DEMO_TASK);
    if (!asking.interactive) {
      print(
        '(No interactive terminal here: every ask will end "unavailable", and the agent says so.)',
      );
    }
    const earlier: AskUserToolDetails[] = [];
    for (const [index, step] of DEMO_STEPS.entries()) {
      const input = step.input(earlier);
      print();
      print(`agent ▸ ${step.thinking}`);
      print(`agent ▸ ask_user ${JSON.stringify(input)}`);
      const result = await asking.tool.execute(`call-${index + 1}`, input, interrupts.signal);
      earlier.push(result.details);
      print(`tool result${result.isError ? ' (isError)' : ''} ▸`);
      for (const line of result.content[0].text.split('\n')) print(`  │ ${line}`);
      print(`agent ▸ ${step.react(result.details)}`);
      if (result.details.status === 'aborted') {
        print('agent ▸ Interrupted; stopping here.');
        break;
      }
    }
    print();
    print('Audit trail (every lifecycle transition, service clock):');
    for (const line of formatAuditTrail(trail)) print(`  ${line}`);
    return interrupts.received === undefined
      ? EXIT.answered
      : exitCodeFor('aborted', interrupts.received);
  } finally {
    subscription.unsubscribe();
    interrupts.dispose();
    asking.close();
  }
}
