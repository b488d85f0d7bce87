/** `--help` text for `ask-engine` and each of its commands. */
import { EXIT_CODES_HELP } from './exit-codes.js';

const PREFERENCES = `Terminal preferences (they win over the caller's hints):
  --ask-user-display-mode inline|overlay        default inline
  --ask-user-single-select-layout auto|list     default auto (split pane when wide)
  --ask-user-overlay-toggle-key KEY             default alt+o   (off|none|disabled|'' = off)
  --ask-user-comment-toggle-key KEY             default ctrl+g  (off|none|disabled|'' = off)
  No shortcut may bind esc, ctrl+c, ctrl+d, enter, tab, space or an arrow key.
  Also read from the settings file: $ASK_ENGINE_SETTINGS, else
  $XDG_CONFIG_HOME/ask-engine/settings.json (~/.config/ask-engine/settings.json).`;

export const MAIN_HELP = `ask-engine: stop an agent loop and ask a person.

Usage:
  ask-engine demo                 a scripted agent that asks you every kind of question
  ask-engine ask [JSON | -]       ask the ask_user tool input JSON in this terminal
  ask-engine ask JSON --store FILE --defer   keep the ask in a SQLite file for later (exit 4)
  ask-engine serve --store FILE   answer deferred asks from a browser (web answer page)
  ask-engine mcp                  an MCP stdio server whose ask_user tool asks the client's user
  ask-engine claude-hook --store PATH|URL     a Claude Code PreToolUse hook: hook JSON on stdin, decision on stdout
  ask-engine resume ID ANSWERS --store FILE   answer a deferred ask kept in a SQLite file
  ask-engine list --store PATH|URL            what the store holds, newest first (--state pending)
  ask-engine show ASK_ID --store PATH|URL     one ask and its history
  ask-engine answer ASK_ID ANSWERS --store …  answer a pending or deferred ask by its id
  ask-engine cancel ASK_ID --store …          cancel it
  ask-engine export --store … [--since 24h]   asks and their histories as JSON Lines
  ask-engine <command> --help     help for one command
  ask-engine --version            the installed version

${EXIT_CODES_HELP}

Examples:
  ask-engine demo
  ask-engine ask '{"question":"Deploy now?","options":["Yes","No"]}'
  ask-engine ask '{"question":"Deploy now?","options":["Yes","No"]}' --store asks.db --defer
  ask-engine serve --store asks.db
`;

export const ASK_HELP = `Usage: ask-engine ask [JSON | -] [options]

Asks the ask_user tool input (an argument, or stdin with "-" or when piped) in this terminal
and prints the outcome as JSON on stdout. The interface uses the controlling terminal, so
stdin and stdout may be redirected.

Options:
  --text              print the tool result text the agent would receive, not JSON
  --timeout DURATION  give up after 1500 (ms), 30s, 2m, 1h (1s to 876000h): the outcome is timedOut
  --store FILE        keep the ask in this SQLite file (created if missing)
  --defer             do not ask here: keep the ask waiting in --store and exit 4 at once;
                      answer it with ask-engine resume ID or from ask-engine serve's link
  --interaction-id ID the id resume answers a deferred ask by (default: the ask id)
  -h, --help          this help

The JSON outcome carries the ask's id (askId) and, when deferred, its interactionId.

${PREFERENCES}

${EXIT_CODES_HELP}

Examples:
  ask-engine ask '{"question":"Which database?","options":[{"title":"PostgreSQL","description":"server"},{"title":"SQLite","description":"one file"}]}'
  echo '{"question":"Name the branch"}' | ask-engine ask - --text
  ask-engine ask '{"questions":[{"question":"Scope?","options":["Small","Large"]},{"question":"Notes?"}]}' --timeout 2m
  ask-engine ask '{"question":"Pick","options":["a","b"]}' --ask-user-display-mode overlay > answer.json
`;

export const DEMO_HELP = `Usage: ask-engine demo [options]

Runs a scripted agent (no model, no network) that adds rate limiting to a small web app and
calls ask_user five times: a single-select with descriptions, a multi-select with a comment,
a typed answer, a three-question wizard and a plan review. After each call it prints the tool
result exactly as the agent receives it, and at the end the audit trail of every ask.
Without an interactive terminal every ask ends "unavailable", and the demo says so.

Keys: ↑↓ move · type to search · enter choose · space pick (multi-select; while searching,
      space types and enter picks) · tab/shift+tab questions · ctrl+g comment · ctrl+e long
      context · alt+enter new line · esc goes back one step: closes an editor (keeping its
      text), clears a search, else cancels (asking first if something typed would be lost)

Options:
  -h, --help   this help

${PREFERENCES}

Examples:
  ask-engine demo
  ask-engine demo --ask-user-display-mode overlay
  ASK_ENGINE_SETTINGS=./settings.json ask-engine demo
`;
