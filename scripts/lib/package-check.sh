#!/usr/bin/env bash
# Run by `scripts/package --check` (as root): checks what it wrote where no Swift is.
#   package-check.sh DEB ARCHIVE
# 1. A minimal Debian stable root (mmdebstrap, Debian's packages only) with DEB installed by apt, so
#    its Depends are resolved; in it: `halftunes --version`, `halftunes demo` answering on its port,
#    a search and a download (--no-tags) against the DemoCatalog, byte for byte against the preview
#    as curl fetches it, then `dpkg -r` removing every file the package installed.
# 2. ARCHIVE unpacked into a temporary prefix: its binary run with only /usr/bin:/bin on PATH and no
#    LD_LIBRARY_PATH (version, a search), install.sh into a temporary PREFIX, uninstall.sh emptying it.
set -euo pipefail
deb=$(realpath "$1")
archive=$(realpath "$2")
[ "$(id -u)" = 0 ] || { echo "package --check: run it as root (it builds a Debian root with mmdebstrap)" >&2; exit 2; }
if ! command -v mmdebstrap >/dev/null; then
  echo "package --check: installing mmdebstrap with apt-get" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
fi
failures=0
ok() { echo "ok: $*"; }
bad() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }
check() {  # check DESCRIPTION COMMAND...
  local description=$1; shift
  if "$@" >/dev/null 2>&1; then ok "$description"; else bad "$description"; fi
}
work=$(mktemp -d /tmp/halftunes-check.XXXXXX)
root=$work/root
# Every process whose root is the Debian root (the demo, the catalog, an agent) ends with the check.
stop_root() {
  local proc
  for proc in /proc/[0-9]*; do
    [ "$(readlink "$proc/root" 2>/dev/null)" = "$root" ] && kill -9 "${proc#/proc/}" 2>/dev/null || true
  done
  sleep 0.2
  umount "$root/proc" "$root/dev" 2>/dev/null || true
}
trap 'stop_root; rm -rf "$work"' EXIT
# wait_line FILE PATTERN: the first match of the sed pattern in FILE, within 20 s.
wait_line() {
  local found
  for _ in $(seq 100); do
    found=$(sed -n "$2" "$1" 2>/dev/null | head -1)
    [ -n "$found" ] && { echo "$found"; return 0; }
    sleep 0.2
  done
  return 1
}
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

echo "== a clean Debian stable root, the package installed by apt" >&2
version=$(dpkg-deb -f "$deb" Version)
# The package goes in through the root's own apt, which resolves its Depends from Debian's archive.
mmdebstrap --quiet --variant=apt \
  --customize-hook="copy-in '$deb' /tmp" \
  --customize-hook="chroot \"\$1\" apt-get install --yes --quiet=2 '/tmp/$(basename "$deb")' >/dev/null" \
  --customize-hook="rm -f \"\$1/tmp/$(basename "$deb")\"" \
  stable "$root" http://deb.debian.org/debian </dev/null
check "no Swift in the root" test -z "$(find "$root" -name 'libswiftCore*' -o -name 'libFoundation*.so' | head -1)"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
in_root() { chroot "$root" env -i PATH=/usr/bin:/bin HOME=/root "$@"; }
check "halftunes --version prints $version" test "$(in_root halftunes --version)" = "$version"
check "the manual is installed" test -f "$root/usr/share/man/man1/halftunes.1.gz"
check "the user units are installed, not enabled" sh -c "test -f '$root/usr/lib/systemd/user/halftunes-agent.socket' && ! find '$root/etc' -name 'halftunes*' | grep -q ."

in_root halftunes demo --port 0 --home /root/demo >"$work/demo.out" 2>&1 &
if page=$(wait_line "$work/demo.out" 's|.*running at \(http://[^ ]*\).*|\1|p'); then
  check "demo answers on its port with the page" sh -c "curl -sf '$page' | grep -q 'halftunes-token'"
  check "demo serves the page's script (from the binary itself)" sh -c "curl -sf '${page}static/app.js' | grep -q import"
else
  bad "demo did not print its URL: $(cat "$work/demo.out")"
fi

in_root halftunes demo-catalog --port 0 >"$work/catalog.out" 2>&1 &
if catalog=$(wait_line "$work/catalog.out" 's|^DemoCatalog at ||p'); then
  in_root halftunes search love --limit 3 --json --catalog "$catalog" >"$work/search.json" || true
  id=$(json 'd["results"][0]["id"]' <"$work/search.json" 2>/dev/null || true)
  if [ -n "$id" ]; then
    ok "search answers from the DemoCatalog (first result $id)"
    if in_root halftunes download "$id" --no-tags --home /root/music --catalog "$catalog" >"$work/download.out" 2>&1; then
      in_root halftunes list --json --home /root/music >"$work/list.json"
      file=$(json '[e["file"] for e in d["library"]][0]' <"$work/list.json")
      preview=$(json '[e["previewURL"] for e in d["library"]][0]' <"$work/list.json")
      curl -sf -o "$work/preview" "$preview"
      check "the download is byte-exact with the preview ($(stat -c %s "$work/preview") bytes)" cmp "$root$file" "$work/preview"
    else
      bad "download $id: $(tail -3 "$work/download.out")"
    fi
  else
    bad "search found nothing: $(cat "$work/search.json")"
  fi
else
  bad "demo-catalog did not print its URL: $(cat "$work/catalog.out")"
fi
stop_root

chroot "$root" dpkg -L halftunes >"$work/files"
chroot "$root" dpkg -r halftunes >/dev/null
left=$(while read -r path; do [ -f "$root$path" ] && echo "$path"; done <"$work/files" || true)
check "dpkg -r removes every file it installed ($(wc -l <"$work/files") paths listed)" test -z "$left"

echo "== the archive, unpacked, with no Swift on PATH or LD_LIBRARY_PATH" >&2
mkdir "$work/unpacked" "$work/prefix"
tar -xzf "$archive" -C "$work/unpacked"
top=$(find "$work/unpacked" -mindepth 1 -maxdepth 1 -type d)
bare() { env -i PATH=/usr/bin:/bin HOME="$work/home" "$@"; }
check "the archive's binary runs" test "$(bare "$top/bin/halftunes" --version)" = "$version"
check "ldd names no Swift, Foundation, ICU or dispatch library" sh -c "! ldd '$top/bin/halftunes' | grep -Ei 'swift|foundation|icu|dispatch|not found'"
env -i PATH=/usr/bin:/bin HOME="$work/home" "$top/bin/halftunes" demo-catalog --port 0 >"$work/catalog2.out" 2>&1 &
catalog_pid=$!
if catalog=$(wait_line "$work/catalog2.out" 's|^DemoCatalog at ||p'); then
  check "the archive's binary searches" sh -c "env -i PATH=/usr/bin:/bin HOME='$work/home' '$top/bin/halftunes' search love --json --catalog '$catalog' | grep -q previewURL"
fi
kill "$catalog_pid" 2>/dev/null || true
bare PREFIX="$work/prefix" XDG_DATA_HOME="$work/prefix/share" XDG_CONFIG_HOME="$work/prefix/config" "$top/install.sh" 2>/dev/null
check "install.sh puts halftunes in PREFIX/bin" test -x "$work/prefix/bin/halftunes"
check "install.sh puts transfers-agent beside it, and it runs" sh -c "env -i PATH=/usr/bin:/bin '$work/prefix/bin/transfers-agent' --help | grep -q 'background sessions'"
check "install.sh fills in the units' path" grep -qx "ExecStart=$work/prefix/bin/halftunes agent" "$work/prefix/config/systemd/user/halftunes-agent.service"
bare PREFIX="$work/prefix" XDG_DATA_HOME="$work/prefix/share" XDG_CONFIG_HOME="$work/prefix/config" "$top/uninstall.sh" 2>/dev/null
rmdir "$work/prefix/share/halftunes" "$work/prefix/share" 2>/dev/null || true
check "uninstall.sh leaves PREFIX empty" test -z "$(find "$work/prefix" -mindepth 1 -print -quit)"

[ $failures = 0 ] || { echo "package --check: $failures checks failed" >&2; exit 1; }
echo "package --check: every check passed" >&2
