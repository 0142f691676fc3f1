# Sourced by scripts/install and scripts/package.
#
#   stage_tree BINARY GENERATE_MANUAL OUT BINDIR
#
# Lays out everything HalfTunes installs in OUT, as under a prefix:
#   bin/halftunes                                   BINARY, as is
#   bin/transfers-agent                             the transfer agent built beside BINARY, as is
#   share/man/man1/halftunes.1                      from the argument parser's generate-manual tool
#   share/bash-completion/completions/halftunes     bash, zsh and fish completions, from BINARY
#   share/zsh/site-functions/_halftunes
#   share/fish/vendor_completions.d/halftunes.fish
#   lib/systemd/user/halftunes.service              the user units; ExecStart names BINDIR/halftunes
#   lib/systemd/user/halftunes-agent.socket         (the literal @BINDIR@ is left for install.sh to fill in)
#   lib/systemd/user/halftunes-agent.service
#   share/applications/halftunes.desktop            the menu entry that opens the web app
#   share/doc/halftunes/README.md, copyright        the README and the licence
#   install.sh, uninstall.sh                        scripts/lib/archive-install.sh and scripts/uninstall
stage_tree() {
  local binary=$1 generate_manual=$2 out=$3 bindir=$4
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  mkdir -p "$out/bin" "$out/share/man/man1" "$out/share/bash-completion/completions" \
    "$out/share/zsh/site-functions" "$out/share/fish/vendor_completions.d" "$out/lib/systemd/user" \
    "$out/share/applications" "$out/share/doc/halftunes"
  install -m 755 "$binary" "$out/bin/halftunes"
  install -m 755 "$(dirname "$binary")/transfers-agent" "$out/bin/transfers-agent"
  "$generate_manual" "$binary" --output-directory "$out/share/man/man1" >"$out/manual.log" 2>&1 || {
    cat "$out/manual.log" >&2; return 1; }
  rm -f "$out/manual.log"
  "$binary" --generate-completion-script bash >"$out/share/bash-completion/completions/halftunes"
  "$binary" --generate-completion-script zsh >"$out/share/zsh/site-functions/_halftunes"
  "$binary" --generate-completion-script fish >"$out/share/fish/vendor_completions.d/halftunes.fish"
  cat >"$out/lib/systemd/user/halftunes.service" <<UNIT
[Unit]
Description=HalfTunes web app (search the iTunes catalog, download and play previews)
Documentation=man:halftunes(1)
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
ExecStart=$bindir/halftunes serve --host 127.0.0.1 --port 8080
Restart=on-failure
RestartSec=2
StandardOutput=journal
StandardError=journal

[Install]
WantedBy=default.target
UNIT
  # The agent is socket-activated: systemd listens on its socket and starts it on the first
  # connection, handing it the listening socket; it ends when idle, and the next connection starts
  # it again. Commands that find neither start the socket unit (systemctl --user start).
  cat >"$out/lib/systemd/user/halftunes-agent.socket" <<UNIT
[Unit]
Description=HalfTunes transfer agent's socket (starts the agent on the first connection)
Documentation=man:halftunes(1)

[Socket]
ListenStream=%t/halftunes/agent.sock
SocketMode=0600
DirectoryMode=0700

[Install]
WantedBy=sockets.target
UNIT
  # No [Install]: its socket starts it.
  cat >"$out/lib/systemd/user/halftunes-agent.service" <<UNIT
[Unit]
Description=HalfTunes transfer agent (owns the downloads; started on demand, ends when idle)
Documentation=man:halftunes(1)
Requires=halftunes-agent.socket
After=halftunes-agent.socket

[Service]
Type=simple
ExecStart=$bindir/halftunes agent
Restart=on-failure
RestartSec=2
# 2: its socket folder is unusable; 4: another agent already runs. Restarting changes neither.
RestartPreventExitStatus=2 4
StandardOutput=journal
StandardError=journal
UNIT
  cat >"$out/share/applications/halftunes.desktop" <<ENTRY
[Desktop Entry]
Type=Application
Name=HalfTunes
GenericName=Music preview downloader
Comment=Search the iTunes catalog, download song previews and play them
Exec=sh -c "systemctl --user start halftunes.service; exec xdg-open http://127.0.0.1:8080/"
Icon=audio-x-generic
Terminal=false
Categories=AudioVideo;Audio;
Keywords=music;preview;iTunes;download;
ENTRY
  install -m 644 "$root/README.md" "$out/share/doc/halftunes/README.md"
  install -m 644 "$root/LICENSE" "$out/share/doc/halftunes/copyright"
  install -m 755 "$root/scripts/lib/archive-install.sh" "$out/install.sh"
  install -m 755 "$root/scripts/uninstall" "$out/uninstall.sh"
}
