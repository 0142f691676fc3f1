"""A small iTunes-shaped server for scripts/layout-order: /lookup?id=… answers with tracks whose previews
it serves, so a traced `halftunes download` runs the paths of a large batch (several lookup calls,
connections reused across many files, bodies in many parts) as scripts/bench-downloads does with nginx.
Ids 700001… are 2 KiB files, 800001… 1 MiB files. Prints its base URL, serves until killed."""
import http.server, json, os, sys, urllib.parse

SMALL, LARGE = 700000, 800000
payload = os.urandom(1 << 20)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *arguments):
        pass

    def answer(self, status, body, kind):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/lookup":
            ids = [int(i) for i in urllib.parse.parse_qs(url.query).get("id", [""])[0].split(",") if i.isdigit()]
            base = f"http://{self.headers['Host']}"
            results = [{"wrapperType": "track", "kind": "song", "trackId": i, "trackName": f"Track {i}",
                        "artistName": "Layout", "collectionName": "Batch", "trackTimeMillis": 30000,
                        "previewUrl": f"{base}/previews/{i}.m4a"} for i in ids]
            self.answer(200, json.dumps({"resultCount": len(results), "results": results}).encode(), "application/json")
        elif url.path.startswith("/previews/") and url.path.endswith(".m4a"):
            track = int(url.path[len("/previews/"):-len(".m4a")])
            self.answer(200, payload[: 2048 if track < LARGE else len(payload)], "audio/mp4")
        else:
            self.answer(404, b"", "text/plain")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
