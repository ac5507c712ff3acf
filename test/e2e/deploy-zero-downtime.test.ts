import t, { type Test } from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { caddyLoads, requireCaddy } from '../helpers/caddy.js';
import { deploy, deployEnv, probe } from '../helpers/deploy.js';
import { containersOf, imagesOf, removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { startLoad, type LoadClient, type RequestResult } from '../helpers/load.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// Two servers, each deploying four versions under load: on a busy 2-core machine this outlasts tap's 180 s per file.
// Every wait below has its own deadline; this is only the backstop.
t.setTimeout(360_000);

const VERSIONS = ['v1', 'v2', 'v3', 'v4'];
const HOSTNAME = 'clock.zero.test';
const SLOW_SECONDS = 1.5;
/** Longer than a slow request, so one that started just before a switch finishes on the old container. */
const DRAIN_SECONDS = 3;

/** Names its version; `/slow` answers after SLOW_SECONDS. It exits on SIGTERM (as PID 1 it would ignore it otherwise). */
const app = (version: string) => ({
  Dockerfile: 'FROM slipway/runtime-python:bookworm\nWORKDIR /app\nCOPY server.py .\nCMD ["python3", "-u", "server.py"]\n',
  'server.py': `import http.server, os, signal, sys, time
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/slow":
            time.sleep(${SLOW_SECONDS})
            body = b"${version} slow"
        else:
            body = b"${version}"
        self.send_response(200); self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, fmt, *args):
        pass
class S(http.server.ThreadingHTTPServer):
    request_queue_size = 128
S(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`,
});

/** The version index an answer names, or -1 when it is not a 200 with a known body. */
function versionOf(r: RequestResult): number {
  if (r.status !== 200) return -1;
  return VERSIONS.findIndex((v) => r.body === (r.kind === 'slow' ? `${v} slow` : v));
}

/** Per target: two clients on fresh connections, one on a kept-alive connection, three slow ones a third of a request apart. */
function clientsFor(target: string, port: number, host: string): LoadClient[] {
  const base = { port, host, pauseMs: 40 };
  return [
    { ...base, name: `${target}/fresh/1`, kind: 'fresh', path: '/', keepAlive: false },
    { ...base, name: `${target}/fresh/2`, kind: 'fresh', path: '/', keepAlive: false },
    { ...base, name: `${target}/keepalive/1`, kind: 'keepalive', path: '/', keepAlive: true },
    { ...base, name: `${target}/slow/1`, kind: 'slow', path: '/slow', keepAlive: false, pauseMs: 0 },
    { ...base, name: `${target}/slow/2`, kind: 'slow', path: '/slow', keepAlive: false, pauseMs: 0, startDelayMs: (SLOW_SECONDS * 1000) / 3 },
    { ...base, name: `${target}/slow/3`, kind: 'slow', path: '/slow', keepAlive: false, pauseMs: 0, startDelayMs: (SLOW_SECONDS * 2000) / 3 },
  ];
}

/** Waits until Docker lists only `deploymentId`'s container for the service (the old ones drained, stopped, removed). */
async function waitUntilOnlyContainerOf(serviceId: string, deploymentId: string, timeoutMs = 90_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const left = (await containersOf({ [LABEL.service]: serviceId })).map((c) => c.Labels[LABEL.deployment]);
    if (left.length === 1 && left[0] === deploymentId) return;
    if (Date.now() > end) throw new Error(`the service still has the containers of ${left.join(', ')} ${timeoutMs} ms after its last deployment (wanted only ${deploymentId})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** So that every client's first answer comes from v1, before the first redeploy starts. */
async function untilEveryClientAnswered(results: readonly RequestResult[], clients: readonly LoadClient[], timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const silent = clients.filter((c) => !results.some((r) => r.client === c.name)).map((c) => c.name);
    if (silent.length === 0) return;
    if (Date.now() > end) throw new Error(`no answer yet for ${silent.join(', ')} after ${timeoutMs} ms of load`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Where Caddy dials the service's host port route, read from Caddy itself. */
async function caddyDial(adminListen: string, serviceId: string): Promise<string> {
  const response = await fetch(`http://${adminListen}/id/slipway-port-${serviceId}/handle/0/upstreams/0/dial`);
  return (await response.json()) as string;
}

interface Redeploys {
  s: TestServer;
  serviceId: string;
  results: RequestResult[];
  clients: LoadClient[];
  /** Caddy's loads the first deployment added, then each redeploy. */
  loadsOfFirst: number;
  loadsPerRedeploy: number[];
  /** Where Caddy dialled the service after each deployment. */
  dials: string[];
  hostPort: number;
}

/**
 * Deploys v1, then v2, v3, v4 one after the other under load on the host port and on the domain, and keeps
 * the load running until Docker lists only v4's container.
 */
async function redeployUnderLoad(t: Test, upstreamSwitch: 'iptables' | 'reload'): Promise<Redeploys> {
  const git = await startGitServer();
  t.teardown(() => git.close());
  git.push('acme/clock', app('v1'));
  const { env, proxyPort } = await deployEnv({
    SLIPWAY_GIT_BASE_URL: git.baseUrl,
    SLIPWAY_UPSTREAM_SWITCH: upstreamSwitch,
    SLIPWAY_DRAIN: String(DRAIN_SECONDS),
  });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, `Clock ${upstreamSwitch}`);
  t.teardown(() => removeProjectLeftovers(project.id));
  const svc = await createService(s, project.id, { name: 'clock', repoFullName: 'acme/clock', branch: 'main', internalPort: 8080 });
  const added = await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: HOSTNAME } });
  if (added.body.proxy?.ok !== true) throw new Error(`the domain was not routed: ${JSON.stringify(added.body)}`);

  const dials: string[] = [];
  const loadsBeforeFirst = caddyLoads(s.dataDir);
  const { done: first } = await deploy(s, svc.id);
  if (first.status !== 'succeeded') throw new Error(`the first deployment ended ${first.status}: ${first.reason}`);
  const loadsOfFirst = caddyLoads(s.dataDir) - loadsBeforeFirst;
  dials.push(await caddyDial(env.SLIPWAY_CADDY_ADMIN_LISTEN, svc.id));
  for (const [port, host] of [[svc.hostPort, 'localhost'], [proxyPort, HOSTNAME]] as const) {
    const answer = await probe(port, host);
    if (answer.body !== 'v1') throw new Error(`v1 does not answer on ${host}:${port}: ${JSON.stringify(answer)}`);
  }

  const clients = [...clientsFor('port', svc.hostPort, 'localhost'), ...clientsFor('domain', proxyPort, HOSTNAME)];
  const load = startLoad(clients);
  const loadsPerRedeploy: number[] = [];
  let last = first;
  try {
    await untilEveryClientAnswered(load.results, clients);
    for (const version of VERSIONS.slice(1)) {
      git.push('acme/clock', app(version));
      const before = caddyLoads(s.dataDir);
      const startedAt = Date.now();
      const { done } = await deploy(s, svc.id);
      t.comment(`${version} deployed in ${Date.now() - startedAt} ms`);
      if (done.status !== 'succeeded') throw new Error(`the deployment of ${version} ended ${done.status}: ${done.reason}`);
      loadsPerRedeploy.push(caddyLoads(s.dataDir) - before);
      dials.push(await caddyDial(env.SLIPWAY_CADDY_ADMIN_LISTEN, svc.id));
      last = done;
    }
    const retiringSince = Date.now();
    await waitUntilOnlyContainerOf(svc.id, last.id);
    t.comment(`the previous container was gone ${Date.now() - retiringSince} ms after the last deployment`);
  } finally {
    await load.stop();
  }
  // Draining removes the old containers; their images stay while their releases are kept (releasesKept, 10 here).
  const releases = (await s.call('GET', `/api/services/${svc.id}/releases`)).body.releases as { imageId: string; available: boolean }[];
  t.equal(releases.length, VERSIONS.length, 'a release per version');
  const images = await imagesOf({ [LABEL.service]: svc.id });
  t.same(new Set(images.map((i) => i.Id)), new Set(releases.map((r) => r.imageId)), 'the images of the kept releases stay, for rollbacks');
  return { s, serviceId: svc.id, results: load.results, clients, loadsOfFirst, loadsPerRedeploy, dials, hostPort: svc.hostPort };
}

/** Assertions that hold for both switches: enough load of every kind, each client moving forward only, slow requests crossing each switch. */
function checkLoad(t: Test, { results, clients }: Redeploys) {
  const answered = results.filter((r) => versionOf(r) >= 0);
  for (const target of ['port', 'domain']) {
    const minimum: Record<string, number> = { fresh: 200, keepalive: 100, slow: 12 };
    for (const [kind, least] of Object.entries(minimum)) {
      const count = results.filter((r) => r.client.startsWith(`${target}/${kind}/`)).length;
      t.ok(count >= least, `${target}, ${kind}: ${count} requests (at least ${least})`);
    }
    const fastVersions = new Set(answered.filter((r) => r.client.startsWith(`${target}/`) && r.kind !== 'slow').map((r) => VERSIONS[versionOf(r)]));
    t.same([...fastVersions].sort(), VERSIONS, `${target}: every version answered while it was current`);

    for (let k = 0; k + 1 < VERSIONS.length; k++) {
      const onTarget = answered.filter((r) => r.client.startsWith(`${target}/`));
      // Once any client got the next version, the switch was done; an answer of the previous version that ends
      // later was already under way at the switch, on the old container. It must come from the old version:
      // Caddy retries a GET whose upstream went away on the new one, so a request cut by a retirement that did
      // not wait shows as a late answer of the next version, not as an error.
      const switchedBy = Math.min(...onTarget.filter((r) => versionOf(r) === k + 1).map((r) => r.endedAt));
      const crossing = onTarget.filter((r) => r.kind === 'slow' && versionOf(r) === k && r.endedAt > switchedBy);
      const around = results
        .filter((r) => r.client.startsWith(`${target}/slow/`) && r.endedAt > switchedBy - 3000 && r.startedAt < switchedBy + 3000)
        .map((r) => `${r.client} ${Math.round(r.startedAt - switchedBy)}..${Math.round(r.endedAt - switchedBy)} ms: ${r.status ?? r.error} ${r.body}`);
      t.ok(crossing.length > 0, `${target}: ${crossing.length} slow requests in flight across the switch ${VERSIONS[k]} → ${VERSIONS[k + 1]} were answered by ${VERSIONS[k]}`, { around });
    }
  }

  const backwards: string[] = [];
  const endpoints: Record<string, string[]> = {};
  for (const client of clients) {
    const seen = answered.filter((r) => r.client === client.name).map(versionOf);
    for (let i = 1; i < seen.length; i++) if (seen[i]! < seen[i - 1]!) backwards.push(`${client.name}: ${VERSIONS[seen[i - 1]!]} then ${VERSIONS[seen[i]!]}`);
    endpoints[client.name] = [VERSIONS[seen[0]!] ?? 'none', VERSIONS[seen.at(-1)!] ?? 'none'];
  }
  t.same(backwards, [], 'no client saw an older version after a newer one');
  t.same(endpoints, Object.fromEntries(clients.map((c) => [c.name, ['v1', 'v4']])), 'every client started on v1 and ended on v4');
}

const describe = (rs: readonly RequestResult[]) => rs.slice(0, 10).map((r) => `${r.client} → ${r.status ?? r.error} ${JSON.stringify(r.body)}`);

t.test('NAT switch: three redeploys under load, not one failed request, no Caddy reload', { skip: (await requireDocker()) || requireCaddy() }, async (t) => {
  const run = await redeployUnderLoad(t, 'iptables');
  const { s, results, clients } = run;
  t.not(s.app.upstreams, null, 'the switch is the NAT rule (iptables is usable here)');
  t.comment(`${results.length} requests`);

  t.same(describe(results.filter((r) => versionOf(r) < 0)), [], `${results.length} requests, every one answered 200 by a known version`);
  checkLoad(t, run);
  const keptAlive = clients.filter((c) => c.keepAlive).map((c) => c.name);
  t.same(
    keptAlive.map((name) => [name, [...new Set(results.filter((r) => r.client === name).map((r) => r.connection))]]),
    keptAlive.map((name) => [name, [1]]),
    'each kept-alive client used one connection to Caddy from start to end: Caddy never dropped it',
  );

  // The first deployment gives the route an upstream (the domain answered 503 before): one load. A redeploy moves the rule only.
  t.equal(run.loadsOfFirst, 1, 'the first deployment loaded Caddy once (its route became live)');
  t.same(run.loadsPerRedeploy, [0, 0, 0], 'no redeploy reloaded Caddy');
  const stable = `${s.app.upstreams?.addressOf(run.hostPort).host}:${run.hostPort}`;
  t.same(run.dials, VERSIONS.map(() => stable), "Caddy dials the service's stable NAT address after every deployment");
});

t.test('reload switch: each redeploy reloads Caddy, the route moves, no HTTP error', { skip: (await requireDocker()) || requireCaddy() }, async (t) => {
  const run = await redeployUnderLoad(t, 'reload');
  const { s, results, clients } = run;
  t.equal(s.app.upstreams, null, 'no NAT rules: Caddy points at the container');
  t.comment(`${results.length} requests`);

  // Debian's Caddy 2.6 swaps its SO_REUSEPORT listener at each reload and closes idle kept-alive connections:
  // a connection queued on the old listener at that instant, or a request sent on a connection being closed,
  // is reset. Those resets are connection-level (no HTTP answer) and a client has one connection under way
  // at a time, so a reload resets at most one request per client. Any HTTP answer, though, must be 200 from a
  // known version: a 502, 503 or 404 would mean the route pointed somewhere wrong.
  const answeredWrong = results.filter((r) => r.status !== null && versionOf(r) < 0);
  t.same(describe(answeredWrong), [], 'every HTTP answer is 200 from a known version');
  const resets = results.filter((r) => r.status === null);
  t.same(describe(resets.filter((r) => r.error !== 'ECONNRESET' && r.error !== 'EPIPE')), [], 'the only failures are connection resets');
  const bound = clients.length * run.loadsPerRedeploy.length;
  t.ok(resets.length <= bound, `${resets.length} connection resets of ${results.length} requests (at most ${bound}: one per client and reload)`);
  checkLoad(t, run);

  t.equal(run.loadsOfFirst, 1, 'the first deployment loaded Caddy once');
  t.same(run.loadsPerRedeploy, [1, 1, 1], 'each redeploy reloaded Caddy exactly once');
  t.equal(new Set(run.dials).size, VERSIONS.length, `Caddy dialled a new container after every deployment: ${run.dials.join(', ')}`);
  t.ok(run.dials.every((d) => d.startsWith('127.0.0.1:')), 'straight to the loopback port of the container');
});
