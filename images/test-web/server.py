import http.server, os, threading

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = os.environ.get("GREETING", "hello from the test image").encode()
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

# A release that serves, then dies: what a release watch must catch after the update is over.
if os.environ.get("CRASH_AFTER_SECONDS"):
    def crash():
        print("test-web crashing on purpose", flush=True)
        os._exit(3)
    threading.Timer(float(os.environ["CRASH_AFTER_SECONDS"]), crash).start()

print("test-web listening on", os.environ["PORT"], flush=True)
http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["PORT"])), Handler).serve_forever()
