#!/usr/bin/env bash
# `npm run setup`: installs the Debian packages the tests drive, when they are missing:
#   chromium       the browser tests (playwright-core drives /usr/bin/chromium)
#   tmux           the terminal tests (a real terminal for the CLI)
#   postgresql-15  the PostgreSQL store's tests (/usr/lib/postgresql/15/bin)
# Says what it installs; does nothing when all are present. Needs root or sudo to install.
set -euo pipefail

# Where each one is looked for; the variables exist so the script's own test can point them away.
chromium=${ASK_ENGINE_SETUP_CHROMIUM:-/usr/bin/chromium}
tmux=${ASK_ENGINE_SETUP_TMUX:-tmux}
postgres=${ASK_ENGINE_SETUP_POSTGRES:-/usr/lib/postgresql/15/bin/postgres}

need=()
[ -x "$chromium" ] || need+=(chromium)
command -v "$tmux" >/dev/null 2>&1 || need+=(tmux)
[ -x "$postgres" ] || need+=(postgresql-15)

if ((${#need[@]} == 0)); then
  echo "setup: chromium, tmux and postgresql-15 are installed; nothing to do."
  exit 0
fi

echo "setup: the tests need ${need[*]}; installing with apt-get (Debian packages, no recommends)."
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: apt-get is not available; install ${need[*]} with your package manager, then run npm test." >&2
  exit 1
fi
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup: installing ${need[*]} needs root; run npm run setup as root or install sudo." >&2
    exit 1
  fi
  as_root=(sudo)
fi
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${need[@]}"
echo "setup: installed ${need[*]}."
