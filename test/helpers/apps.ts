import { TEST_IMAGES } from './docker.js';

/**
 * A small web app that answers `version` (it builds in about a second). `buildStep` adds a Dockerfile line
 * before the app starts; `command` replaces how it starts.
 */
export function versionedApp(version: string, options: { buildStep?: string; command?: string[] } = {}): Record<string, string> {
  const command = options.command ?? ['python3', '-u', 'server.py'];
  return {
    Dockerfile: `FROM ${TEST_IMAGES.python}\nWORKDIR /app\nCOPY server.py .\n${options.buildStep ? `${options.buildStep}\n` : ''}CMD ${JSON.stringify(command)}\n`,
    'server.py': `import http.server, os
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"${version}"
        self.send_response(200); self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`,
  };
}

/**
 * A web app that fills `megabytes` of memory (1 MB at a time, every page written) before it listens: under a
 * smaller memory limit the kernel kills it while it starts.
 */
export function memoryHungryApp(megabytes: number): Record<string, string> {
  return {
    Dockerfile: `FROM ${TEST_IMAGES.python}\nWORKDIR /app\nCOPY hungry.py .\nCMD ["python3", "-u", "hungry.py"]\n`,
    'hungry.py': `import http.server, os
held = []
for i in range(${megabytes}):
    held.append(b"\\x01" * (1024 * 1024))
    if i % 16 == 0:
        print(f"holding {i + 1} MB", flush=True)
print("all allocated", flush=True)
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header("content-length", "2"); self.end_headers(); self.wfile.write(b"ok")
http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`,
  };
}

/** Answers its version on every path, `health` on /health; GET /crash makes it exit with code 3. */
export const healthApp = (version: string, health: number): Record<string, string> => ({
  Dockerfile: `FROM ${TEST_IMAGES.python}\nWORKDIR /app\nCOPY server.py .\nCMD ["python3", "-u", "server.py"]\n`,
  'server.py': `import http.server, os, signal, sys
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/crash":
            os._exit(3)
        status = ${health} if self.path == "/health" else 200
        body = b"${version}"
        self.send_response(status); self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`,
});
