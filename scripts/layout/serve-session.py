"""One session of the web app for scripts/layout-order: `halftunes serve` under bptrace, driven as the
page drives it — the page, a search, the listing, downloads started and their files fetched, a
moment of the event stream, a pause and a resume, a track removed — then stopped with Ctrl-C.
Usage: serve-session.py BPTRACE FUNCTIONS OUT HALFTUNES CATALOG HOME"""
import http.client, json, os, re, signal, subprocess, sys, threading, time, urllib.error, urllib.request

bptrace, functions, out, binary, catalog, home = sys.argv[1:7]
tracer = subprocess.Popen([bptrace, functions, out, "--", binary, "serve", "--home", home, "--port", "0",
                           "--catalog", catalog], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
deadline = time.monotonic() + 60
url = None
while url is None and time.monotonic() < deadline:
    line = tracer.stdout.readline()
    if not line:
        break
    found = re.search(r"(http://127\.0\.0\.1:\d+)", line)
    url = found and found.group(1)
if url is None:
    tracer.kill()
    sys.exit("serve-session: the web app did not start")
threading.Thread(target=tracer.stdout.read, daemon=True).start()
token = json.load(open(os.path.join(home, "server.json")))["token"]


def call(method, path, timeout=30):
    request = urllib.request.Request(url + path, method=method)
    if method != "GET":
        request.add_header("Origin", url)
        request.add_header("X-HalfTunes-Token", token)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except (OSError, http.client.HTTPException):
        return 0, b""


call("GET", "/")
ids = [track["id"] for track in json.loads(call("GET", "/api/search?term=love&limit=10")[1])["results"]]
call("GET", "/api/downloads")
for track in ids:
    call("POST", f"/api/downloads/{track}")
try:
    with urllib.request.urlopen(url + "/api/events", timeout=2) as events:
        events.read(512)
except Exception:
    pass
for track in ids:
    while call("GET", f"/library/{track}")[0] != 200 and time.monotonic() < deadline:
        time.sleep(0.1)
call("GET", "/api/downloads")
if ids:
    call("DELETE", f"/api/library/{ids[0]}")
    call("POST", f"/api/downloads/{ids[0]}")
    call("POST", f"/api/downloads/{ids[0]}/pause")
    call("POST", f"/api/downloads/{ids[0]}/resume")
children = subprocess.run(["pgrep", "-P", str(tracer.pid)], capture_output=True, text=True).stdout.split()
for child in children:
    os.kill(int(child), signal.SIGINT)
try:
    tracer.wait(timeout=30)
except subprocess.TimeoutExpired:
    tracer.kill()
