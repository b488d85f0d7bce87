/** The one stylesheet of every page, served as a file: the CSP allows no inline style. */
export const PAGE_STYLE = `
:root { color-scheme: light dark; --fg: #1b1b1b; --bg: #fff; --muted: #555; --line: #8a8a8a;
  --accent: #0b57d0; --bad: #b3261e; --bad-bg: #fdecea; --ok: #146c2e; --box: #f4f4f4; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #eee; --bg: #161616; --muted: #b8b8b8; --line: #777; --accent: #8ab4f8;
    --bad: #f2b8b5; --bad-bg: #3b1d1b; --ok: #8fd19e; --box: #222; }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 46rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: 0.5rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 0 0 0.5rem; }
.lead, .question-text, .context, .option-description, .typed, dd, .problem p {
  white-space: pre-wrap; overflow-wrap: anywhere; }
.lead { color: var(--muted); }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 1rem; padding: 0.75rem; min-width: 0; }
fieldset.question > legend { font-weight: 700; font-size: 1.1rem; padding: 0 0.25rem; overflow-wrap: anywhere; }
fieldset.field { border-style: dashed; }
fieldset.field > legend { font-weight: 600; padding: 0 0.25rem; }
.question-text { margin: 0 0 0.75rem; }
.context { background: var(--box); border-left: 4px solid var(--line); padding: 0.5rem 0.75rem;
  margin: 0 0 0.75rem; font-family: ui-monospace, monospace; font-size: 0.9rem; max-height: 24rem; overflow: auto; }
.option { display: grid; grid-template-columns: auto 1fr; column-gap: 0.5rem; align-items: start; padding: 0.25rem 0; }
.option input { width: 1.25rem; height: 1.25rem; margin: 0.15rem 0 0; }
.option label { overflow-wrap: anywhere; cursor: pointer; }
.option-description { grid-column: 2; margin: 0; color: var(--muted); font-size: 0.9rem; }
.text-field { margin: 0 0 0.75rem; }
.text-field label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
textarea { display: block; width: 100%; font: inherit; color: inherit; background: var(--bg);
  border: 1px solid var(--line); border-radius: 4px; padding: 0.5rem; resize: vertical; }
.counter { margin: 0.25rem 0 0; font-size: 0.85rem; color: var(--muted); }
.counter.over, .field-error { color: var(--bad); font-weight: 600; }
.inactive { opacity: 0.6; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
button { font: inherit; font-weight: 600; padding: 0.6rem 1.4rem; min-height: 2.75rem; border-radius: 6px;
  border: 2px solid var(--accent); background: var(--accent); color: var(--bg); cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; }
.problem { border: 2px solid var(--bad); background: var(--bad-bg); border-radius: 6px; padding: 0.75rem; margin: 0 0 1rem; }
.live-status { min-height: 1.5rem; color: var(--bad); font-weight: 600; }
.live-status.ready { color: var(--ok); }
.recorded dt { font-weight: 700; margin-top: 0.75rem; }
.recorded dd { margin: 0.25rem 0 0 1rem; }
main.wide { max-width: 80rem; }
.table-scroll { overflow-x: auto; margin: 0 0 1rem; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { text-align: left; border-bottom: 1px solid var(--line); padding: 0.35rem 0.5rem; vertical-align: top; }
th, time { white-space: nowrap; }
td.questions { min-width: 14rem; }
.chart-scroll { overflow-x: auto; }
.statechart { width: 100%; min-width: 44rem; max-width: 60rem; height: auto; display: block; margin: 0 auto 1rem; }
.statechart .state rect { fill: var(--bg); stroke: var(--line); stroke-width: 1.5; }
.statechart .state.final rect { stroke-width: 3; }
.statechart .state.current rect { fill: var(--accent); stroke: var(--accent); }
.statechart .state.current text { fill: var(--bg); font-weight: 700; }
.statechart text { fill: var(--fg); font: 13px system-ui, sans-serif; }
.statechart .edge path { fill: none; stroke: var(--muted); stroke-width: 1.25; }
.statechart .edge text { fill: var(--fg); font: 11px ui-monospace, 'DejaVu Sans Mono', monospace; }
.statechart .label-bg { fill: var(--bg); opacity: 0.92; }
.statechart .arrow { fill: var(--muted); }
.history { font-family: ui-monospace, monospace; font-size: 0.85rem; white-space: pre-wrap; overflow-wrap: anywhere; }
`;
