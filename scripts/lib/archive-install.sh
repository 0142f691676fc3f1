#!/usr/bin/env bash
# Installs HalfTunes from this folder (a release archive, or the tree scripts/install lays out) for
# this user, or into PREFIX:
#   PREFIX/bin/halftunes                                  the program
#   PREFIX/bin/transfers-agent                            the agent of background URL sessions
#   PREFIX/share/man/man1/halftunes.1                     the manual
#   $XDG_DATA_HOME/bash-completion/completions/halftunes  bash completion (found by bash-completion)
#   $XDG_DATA_HOME/zsh/site-functions/_halftunes          zsh completion (add that folder to fpath)
#   $XDG_CONFIG_HOME/fish/completions/halftunes.fish      fish completion
#   $XDG_CONFIG_HOME/systemd/user/halftunes.service       a user service running `halftunes serve` (not enabled)
#   $XDG_CONFIG_HOME/systemd/user/halftunes-agent.socket  the transfer agent's socket: systemd listens, and
#                                                         starts the agent on the first connection
#   $XDG_CONFIG_HOME/systemd/user/halftunes-agent.service the transfer agent (ends by itself when idle)
#   $XDG_DATA_HOME/applications/halftunes.desktop         a menu entry that opens the web app
# and a list of exactly those files, $XDG_DATA_HOME/halftunes/installed-files, which uninstall.sh
# removes. Installing again replaces them. The library ($XDG_DATA_HOME/halftunes/library) is never touched.
#
#   ./install.sh                     # PREFIX=~/.local, XDG_DATA_HOME=~/.local/share, XDG_CONFIG_HOME=~/.config
#   ./install.sh --enable-service    # also: systemctl --user enable --now halftunes.service
#
# Where a systemd user manager runs, the agent's socket is enabled (systemctl --user enable --now
# halftunes-agent.socket); elsewhere commands start the agent themselves.
set -euo pipefail
from=$(cd "$(dirname "$0")" && pwd)
enable=0
for argument in "$@"; do
  case "$argument" in
    --enable-service) enable=1 ;;
    --help) sed -n '2,21p' "$0" | cut -c3-; exit 0 ;;
    *) echo "usage: install.sh [--enable-service]" >&2; exit 2 ;;
  esac
done
[ -x "$from/bin/halftunes" ] || { echo "install.sh: no bin/halftunes beside it in $from" >&2; exit 2; }
prefix=${PREFIX:-$HOME/.local}
data=${XDG_DATA_HOME:-$HOME/.local/share}
configuration=${XDG_CONFIG_HOME:-$HOME/.config}
step() { printf '%s\n' "$*" >&2; }

manifest="$data/halftunes/installed-files"
made_dirs="$data/halftunes/installed-folders"
created=()
# folder DIR: makes a folder and the missing ones above it, remembering each it made.
folder() {
  local dir=$1 missing=()
  while [ ! -d "$dir" ]; do missing=("$dir" "${missing[@]}"); dir=$(dirname "$dir"); done
  for dir in "${missing[@]}"; do mkdir "$dir"; created+=("$dir"); done
}
installed=()
# place SOURCE DESTINATION MODE: copies a file into place (atomically), the units' @BINDIR@ filled in.
place() {
  folder "$(dirname "$2")"
  case "$1" in
    *.service | *.socket) sed "s|@BINDIR@|$prefix/bin|g" "$1" >"$2.installing" && chmod "$3" "$2.installing" ;;
    *) install -m "$3" "$1" "$2.installing" ;;
  esac
  mv -f "$2.installing" "$2"
  installed+=("$2")
}
folder "$data/halftunes"

units=$from/lib/systemd/user
place "$from/bin/halftunes" "$prefix/bin/halftunes" 755
place "$from/bin/transfers-agent" "$prefix/bin/transfers-agent" 755
place "$from/share/man/man1/halftunes.1" "$prefix/share/man/man1/halftunes.1" 644
place "$from/share/bash-completion/completions/halftunes" "$data/bash-completion/completions/halftunes" 644
place "$from/share/zsh/site-functions/_halftunes" "$data/zsh/site-functions/_halftunes" 644
place "$from/share/fish/vendor_completions.d/halftunes.fish" "$configuration/fish/completions/halftunes.fish" 644
place "$units/halftunes.service" "$configuration/systemd/user/halftunes.service" 644
place "$units/halftunes-agent.socket" "$configuration/systemd/user/halftunes-agent.socket" 644
place "$units/halftunes-agent.service" "$configuration/systemd/user/halftunes-agent.service" 644
place "$from/share/applications/halftunes.desktop" "$data/applications/halftunes.desktop" 644
# The lists uninstall.sh reads (folders made by an earlier install are kept in the list).
{ [ -f "$manifest" ] && cat "$manifest"; printf '%s\n' "${installed[@]}"; } | sort -u >"$manifest.new"
mv -f "$manifest.new" "$manifest"
{ [ -f "$made_dirs" ] && cat "$made_dirs"; [ ${#created[@]} -gt 0 ] && printf '%s\n' "${created[@]}"; } | sort -u >"$made_dirs.new" || true
mv -f "$made_dirs.new" "$made_dirs"

# A user manager to ask (a desktop session has one; a container or CI job, as a rule, does not).
if command -v systemctl >/dev/null && systemctl --user show-environment >/dev/null 2>&1; then
  systemctl --user daemon-reload
  if systemctl --user enable --now halftunes-agent.socket >/dev/null 2>&1; then
    step "halftunes-agent.socket is enabled: systemd starts the agent when a command needs it"
  else
    step "note: systemctl --user enable --now halftunes-agent.socket failed; commands start the agent themselves"
  fi
fi
if [ $enable = 1 ]; then
  systemctl --user daemon-reload
  systemctl --user enable --now halftunes.service
  step "halftunes.service is enabled and running: http://127.0.0.1:8080/"
fi
step "installed $(wc -l <"$manifest") files (listed in $manifest)"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) step "note: $prefix/bin is not on your PATH" ;; esac
