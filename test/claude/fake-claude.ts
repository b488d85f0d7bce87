/**
 * A stand-in for the Claude Code process the Agent SDK spawns (`spawnClaudeCodeProcess`): it
 * speaks the SDK's stream-json control protocol on stdin/stdout (initialize, hook_callback,
 * can_use_tool, result) and runs one scripted tool call per turn, with no model and no network.
 * What the SDK answered and which input the tool ran with are kept in `log`; a call a hook
 * deferred is kept per session, so a later process resumes it, as Claude Code does.
 */
import { EventEmitter } from 'node:events';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';

/** A tool call the fake model makes. */
export interface ScriptedToolUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** What one run saw: the decisions the SDK sent back, and what ran. */
export interface FakeRunLog {
  resumed?: string;
  hookOutputs: unknown[];
  permissionResults: unknown[];
  ran?: { name: string; input: Record<string, unknown> };
  deferred?: ScriptedToolUse;
}

export interface FakeClaude {
  spawn(options: SpawnOptions): SpawnedProcess;
  /** One entry per spawned process, in order. */
  runs: FakeRunLog[];
}

type Json = Record<string, unknown>;

/**
 * `toolUse(sessionId)` is the call the fake model makes in a new session's turn;
 * `permissionFields` are added to its `can_use_tool` request (a title, a reason, a path).
 */
export function createFakeClaude(
  toolUse: (sessionId: string) => ScriptedToolUse,
  permissionFields: Record<string, unknown> = {
    decision_reason: 'The command is not in the allow list.',
  },
): FakeClaude {
  const deferredBySession = new Map<string, ScriptedToolUse>();
  let sessions = 0;
  const runs: FakeRunLog[] = [];

  function spawn({ args }: SpawnOptions): SpawnedProcess {
    const log: FakeRunLog = { hookOutputs: [], permissionResults: [] };
    runs.push(log);
    const resumed = args.find((arg) => arg.startsWith('--resume='))?.slice('--resume='.length);
    if (resumed !== undefined) log.resumed = resumed;
    const sessionId = resumed ?? `session-${++sessions}`;
    const hasPermissionHost = args.includes('--permission-prompt-tool=stdio');

    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const events = new EventEmitter();
    let exitCode: number | null = null;
    let killed = false;
    // Getters defined on the emitter itself (Object.assign would copy their first values).
    const child = Object.defineProperties(events, {
      stdin: { value: stdin },
      stdout: { value: stdout },
      killed: { get: () => killed },
      exitCode: { get: () => exitCode },
      kill: {
        value: () => {
          killed = true;
          finish(143);
          return true;
        },
      },
    }) as unknown as SpawnedProcess;

    const send = (message: Json) => {
      if (process.env.FAKE_CLAUDE_DEBUG)
        console.log('child ->', JSON.stringify(message).slice(0, 200));
      stdout.write(`${JSON.stringify(message)}\n`);
    };
    const waiting = new Map<string, (response: Json) => void>();
    let requests = 0;
    const request = (body: Json) =>
      new Promise<Json>((resolve) => {
        const id = `req-${++requests}`;
        waiting.set(id, resolve);
        send({ type: 'control_request', request_id: id, request: body });
      });
    let preToolUseHooks: string[] = [];
    let turnStarted = false;

    function finish(code: number) {
      if (exitCode !== null) return;
      exitCode = code;
      stdout.end();
      setImmediate(() => events.emit('exit', code, null));
    }

    async function turn(call: ScriptedToolUse) {
      let decision: Json | undefined;
      for (const callbackId of preToolUseHooks) {
        const output = await request({
          subtype: 'hook_callback',
          callback_id: callbackId,
          tool_use_id: call.id,
          input: {
            hook_event_name: 'PreToolUse',
            session_id: sessionId,
            transcript_path: `/tmp/${sessionId}.jsonl`,
            cwd: '/work/project',
            tool_name: call.name,
            tool_input: call.input,
            tool_use_id: call.id,
          },
        });
        log.hookOutputs.push(output);
        const specific = output.hookSpecificOutput as Json | undefined;
        if (specific?.permissionDecision !== undefined) decision = specific;
      }
      let runInput: Record<string, unknown> | undefined;
      if (decision?.permissionDecision === 'defer') {
        deferredBySession.set(sessionId, call);
        log.deferred = call;
        return result({
          stop_reason: 'tool_deferred',
          terminal_reason: 'tool_deferred',
          deferred_tool_use: call,
        });
      }
      if (decision?.permissionDecision === 'allow') {
        runInput = (decision.updatedInput as Json | undefined) ?? call.input;
      } else if (decision === undefined && hasPermissionHost) {
        const permission = await request({
          subtype: 'can_use_tool',
          tool_name: call.name,
          input: call.input,
          tool_use_id: call.id,
          ...permissionFields,
        });
        log.permissionResults.push(permission);
        if (permission.behavior === 'allow') {
          runInput = (permission.updatedInput as Json | undefined) ?? call.input;
        }
      }
      if (runInput !== undefined) log.ran = { name: call.name, input: runInput };
      deferredBySession.delete(sessionId);
      return result({ stop_reason: 'end_turn', terminal_reason: 'completed' });
    }

    function result(fields: Json) {
      send({
        type: 'result',
        subtype: 'success',
        is_error: false,
        duration_ms: 1,
        duration_api_ms: 1,
        num_turns: 1,
        result: log.ran === undefined ? 'The tool did not run.' : `Ran ${log.ran.name}.`,
        total_cost_usd: 0,
        usage: {},
        modelUsage: {},
        permission_denials: [],
        session_id: sessionId,
        uuid: globalThis.crypto.randomUUID(),
        ...fields,
      });
      // Claude Code says when the session is idle again: the SDK ends the run on it.
      state('idle');
    }

    function state(value: 'idle' | 'running' | 'requires_action') {
      send({
        type: 'system',
        subtype: 'session_state_changed',
        state: value,
        uuid: globalThis.crypto.randomUUID(),
        session_id: sessionId,
      });
    }

    const startTurn = (call: ScriptedToolUse | undefined) => {
      if (turnStarted || call === undefined) return;
      turnStarted = true;
      state('running');
      void turn(call);
    };

    // As Claude Code in stream-json mode: it runs until its input ends.
    stdin.on('end', () => {
      if (process.env.FAKE_CLAUDE_DEBUG) console.log('stdin end');
      finish(0);
    });
    createInterface({ input: stdin }).on('line', (line) => {
      if (process.env.FAKE_CLAUDE_DEBUG) console.log('child <-', line.slice(0, 200));
      const message = JSON.parse(line) as Json;
      if (message.type === 'control_response') {
        const response = message.response as Json;
        const resolve = waiting.get(String(response.request_id));
        waiting.delete(String(response.request_id));
        resolve?.((response.response as Json | undefined) ?? {});
        return;
      }
      if (message.type === 'control_request') {
        const body = message.request as Json;
        if (body.subtype === 'initialize') {
          const hooks = (body.hooks as Json | undefined)?.PreToolUse as
            | { hookCallbackIds: string[] }[]
            | undefined;
          preToolUseHooks = (hooks ?? []).flatMap((matcher) => matcher.hookCallbackIds);
          send({
            type: 'control_response',
            response: {
              subtype: 'success',
              request_id: message.request_id,
              response: {
                commands: [],
                agents: [],
                output_style: 'default',
                available_output_styles: [],
                models: [],
                account: {},
              },
            },
          });
          // A resumed session continues with the call it deferred, without a new prompt.
          if (resumed !== undefined) startTurn(deferredBySession.get(resumed));
        }
        return;
      }
      if (message.type === 'user') startTurn(toolUse(sessionId));
    });
    return child;
  }

  return { spawn, runs };
}
