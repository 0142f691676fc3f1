# Sourced by scripts/bench-downloads: the download benchmark's
# files, the catalog's answers for them, and the nginx that serves both on 127.0.0.1.
#
#   make_sets WWW BASE "NAME:COUNT:SIZE ..."   # files WWW/NAME/<id>.m4a, lookup answers, ids, urls
#   start_nginx WORK WWW PORT                  # nginx on 127.0.0.1:PORT, pid in WORK/nginx.pid
#   median N...                                # the median of numbers (words of one or more arguments)
#   maximum N..., minimum N...                 # the largest, the smallest
#   serve_sets WORK "NAME:COUNT:SIZE ..."      # the sets in WORK/www, served by nginx on a free port: sets $port

# Each set: files <id>.m4a (random bytes: nothing to tag, so the finisher keeps them as sent) and the
# catalog's answer to /lookup for its ids, as the iTunes API gives it.
make_sets() {
  local www=$1 base=$2 set name count size
  for set in $3; do
    IFS=: read -r name count size <<<"$set"
    mkdir -p "$www/$name"
    python3 - "$www/$name" "$base/$name" "$count" "$size" "$name" <<'PY'
import json, os, sys
folder, base, count, size, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
first = {"a": 100000, "b": 200000, "c": 300000, "d": 400000}.get(name, 500000)
results = []
chunk = os.urandom(min(size, 1 << 20))
for n in range(count):
    track = first + n + 1
    with open(f"{folder}/{track}.m4a", "wb") as out:
        left = size
        while left:
            out.write(chunk[: min(left, len(chunk))])
            left -= min(left, len(chunk))
    results.append({"wrapperType": "track", "kind": "song", "trackId": track, "trackName": f"Track {n + 1}",
                    "artistName": "Bench", "collectionName": f"Set {name}", "trackTimeMillis": 30000,
                    "previewUrl": f"{base}/{track}.m4a"})
# The client asks for 200 ids a call (ITunesCatalog.idsPerLookup), sorted: one answer per call,
# found by nginx from the call's first id.
for start in range(0, count, 200):
    part = results[start:start + 200]
    json.dump({"resultCount": len(part), "results": part}, open(f"{folder}/lookup-{part[0]['trackId']}.json", "w"))
open(f"{folder}/ids", "w").write(" ".join(str(r["trackId"]) for r in results))
open(f"{folder}/urls", "w").write("\n".join(r["previewUrl"] for r in results) + "\n")
PY
  done
}

start_nginx() {
  local work=$1 www=$2 port=$3
  cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  log_format calls '\$uri \$status';
  access_log $work/access.log calls;
  sendfile on;
  keepalive_requests 100000;
  map \$args \$first_id { "~^id=(?<first>\d+)" \$first; default ""; }
  types { audio/mp4 m4a; application/json json; }
  server {
    listen 127.0.0.1:$port; root $www;
    location ~ ^/(?<set>\w+)/lookup\$ { default_type application/json; try_files /\$set/lookup-\$first_id.json =404; }
  }
}
CONF
  nginx -c "$work/nginx.conf"
}

median() { printf '%s\n' $* | sort -g | awk '{a[NR]=$1} END {printf "%.15g\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# maximum VALUES...: the largest (one list or several arguments, as median takes them).
maximum() { printf '%s\n' $* | sort -g | tail -1; }
# minimum VALUES...: the smallest.
minimum() { printf '%s\n' $* | sort -g | head -1; }

serve_sets() {
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  make_sets "$1/www" "http://127.0.0.1:$port" "$2"
  start_nginx "$1" "$1/www" "$port"
}
