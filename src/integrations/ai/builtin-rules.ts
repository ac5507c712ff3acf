import { IMAGE_SETTINGS, imageSettingOf, type ImageSettingName } from '../../installation-images.js';
import type { FailureContext, FailureExplanation } from './explanation.js';

export interface RuleInput {
  context: FailureContext;
  /** The recorded failure reason, '' when there is none. */
  reason: string;
  lines: readonly string[];
}

export interface BuiltinRule {
  readonly id: string;
  /** The explanation when the rule recognises the failure, else null. */
  explain(input: RuleInput): FailureExplanation | null;
}

const MAX_QUOTE = 300;

/** A log line or reason as quoted in an explanation: trimmed, and short. */
export const quote = (line: string) => {
  const text = line.trim();
  return `"${text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}…` : text}"`;
};

function find(lines: readonly string[], pattern: RegExp): RegExpMatchArray | null {
  for (const line of lines) {
    const match = line.match(pattern);
    if (match) return match;
  }
  return null;
}

/** The pattern in the reason, else in the log. */
const inReasonOrLog = ({ reason, lines }: RuleInput, pattern: RegExp) => reason.match(pattern) ?? find(lines, pattern);

/** Lines Slipway writes itself (src/processes/deployment/) and the classic builder's step bookkeeping. */
const OWN_LINE =
  /^(Deployment \S+ started|Deployment (failed|aborted|succeeded)\b|Cloning \S+ \(branch |Checked out commit |Building with |packbuilder: |Built image |Image \S+ is present|Pulling \S+$|Started container |The app answers|The worker is up|Draining |Retiring |Step \d+\/\d+ : | ---> |Removing intermediate container |Successfully (built|tagged) |  (FROM|WORKDIR|COPY|RUN|ENV|EXPOSE|CMD) )/;
// npm's bookkeeping around the line that matters.
const NOISE = /^npm (ERR!|error)( (code|errno|syscall|path|command|cwd|signal|workspace|location|A complete log|Log files were not written|You can rerun)\b|\s*$)/;
const STRONG_ERROR = [
  /^\s*(?:[\w$]+\.)*(?:[A-Z]\w*)?(?:Error|Exception)(?: \[\w+\])?: \S/,
  /^\s*(?:npm (?:ERR!|error)|error|ERROR|Error|fatal|FATAL|panic|E):?\s+\S/,
  /\berror(?:\[\w+\])?(?: [A-Z]+\d+)?:\s*\S/i,
  /^\S+\.\w+:\d+:\d+:\s/,
];
const WEAK_ERROR = /\b(error|failed|failure|fatal|exception|cannot|can't|could not|unable to|not found|no such file|denied|refused|undefined|missing)\b/i;

/** The lines of the last stage that ran: the last build step, or the container's output once it started. */
function lastStage(lines: readonly string[]): readonly string[] {
  for (let i = lines.length - 1; i >= 0; i--) {
    if (/^(Step \d+\/\d+ : |Started container )/.test(lines[i]!)) return lines.slice(i + 1);
  }
  return lines;
}

function pickErrorLine(lines: readonly string[]): string | null {
  const candidates = lines.filter((l) => l.trim() !== '' && !OWN_LINE.test(l) && !NOISE.test(l));
  return (
    candidates.find((l) => STRONG_ERROR.some((p) => p.test(l))) ??
    candidates.find((l) => WEAK_ERROR.test(l)) ??
    null
  );
}

/** The line that best says what went wrong: the first error-like line of the last stage, else of the whole log. */
export function errorLine(lines: readonly string[]): string | null {
  return pickErrorLine(lastStage(lines)) ?? pickErrorLine(lines);
}

/** The last line the app or build wrote (not Slipway's own), for failures that end in silence. */
function lastOutputLine(lines: readonly string[]): string | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line.trim() !== '' && !OWN_LINE.test(line)) return line;
  }
  return null;
}

const sh = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);

const API_HEADERS = `-H "Authorization: Bearer $SLIPWAY_KEY"`;
/** Changes service settings through Slipway's API; SLIPWAY_URL, SLIPWAY_KEY and SERVICE_ID are the user's. */
const patchService = (fields: Record<string, string | number | null>) =>
  `curl -s -XPATCH "$SLIPWAY_URL/api/services/$SERVICE_ID" ${API_HEADERS} -H 'content-type: application/json' -d ${sh(JSON.stringify(fields))}`;
const setVariable = (key: string, value: string, service = 'SERVICE_ID') =>
  `curl -s -XPOST "$SLIPWAY_URL/api/services/$${service}/env" ${API_HEADERS} -H 'content-type: application/json' -d ${sh(JSON.stringify({ key, value }))}`;
const redeploy = `curl -s -XPOST "$SLIPWAY_URL/api/services/$SERVICE_ID/deployments" ${API_HEADERS}`;

const isSource = (c: FailureContext) => c.service.kind !== 'image' && c.service.kind !== 'database' && c.service.repoUrl !== 'docker-image';

/** A fresh shallow checkout of what Slipway cloned, at the service root. */
function checkout(c: FailureContext): string[] {
  const { repoUrl, branch, rootDir } = c.service;
  return [`git clone --depth 1 --branch ${sh(branch)} ${sh(repoUrl)} app`, `cd ${sh(rootDir ? `app/${rootDir.replace(/^\.?\/+/, '')}` : 'app')}`];
}

/** Builds and runs the app as Slipway would, with the same PORT; an image service runs its image. */
function runLocally(c: FailureContext): string[] {
  const port = c.service.internalPort;
  if (c.service.kind === 'database') return [];
  if (!isSource(c)) return [`docker run --rm -e PORT=${port} -p ${port}:${port} ${sh(c.service.dockerImage ?? 'IMAGE')}`];
  return [...checkout(c), 'docker build -t slipway-check .', `docker run --rm -e PORT=${port} -p ${port}:${port} slipway-check`];
}

const LOCKFILE = { npm: 'package-lock.json', yarn: 'yarn.lock', pnpm: 'pnpm-lock.yaml' } as const;

const interrupted: BuiltinRule = {
  id: 'slipway-interrupted',
  explain({ reason }) {
    const m = reason.match(/^Slipway (stopped while this deployment was running|lost track of this run)/);
    if (!m) return null;
    const docker = reason.match(/Docker was unreachable at restart \((.+)\)/);
    return {
      summary: 'The deployment was cut short by Slipway itself, not by the app: Slipway stopped or lost track of the run before it ended.',
      likelyCause: `Slipway recorded: ${quote(reason)}. Nothing in the app or its settings needs to change${docker ? `, but the Docker engine was unreachable when Slipway restarted (${docker[1]})` : ''}.`,
      suggestedFix: docker
        ? 'Make sure the Docker engine is running and reachable by Slipway, then deploy again.'
        : 'Deploy again. If Slipway keeps stopping during deployments, check why it restarts (memory, a supervisor, crashes in its own log).',
      commands: [...(docker ? ['docker info', 'sudo systemctl start docker'] : []), redeploy],
    };
  },
};

const dockerUnreachable: BuiltinRule = {
  id: 'docker-unreachable',
  explain({ reason }) {
    const m = reason.match(/^Docker engine unreachable: (.+)$/);
    if (!m) return null;
    return {
      summary: 'Slipway could not reach the Docker engine, so nothing was built or started.',
      likelyCause: `The Docker engine did not answer: ${quote(m[1]!)}. Either dockerd is not running, or Slipway looks for it on another socket (SLIPWAY_DOCKER_SOCKET, default /var/run/docker.sock), or it may not use that socket.`,
      suggestedFix: 'Start the Docker engine (or fix SLIPWAY_DOCKER_SOCKET) and make sure the user Slipway runs as may use the socket, then deploy again.',
      commands: ['docker info', 'sudo systemctl start docker', 'ls -l /var/run/docker.sock', redeploy],
    };
  },
};

const networkPoolsExhausted: BuiltinRule = {
  id: 'network-pools-exhausted',
  explain(input) {
    if (!inReasonOrLog(input, /could not find an available, non-overlapping IPv4 address pool/)) return null;
    return {
      summary: 'Docker has no address range left for a new network, so the container could not be created.',
      likelyCause:
        "Every Slipway project has its own Docker network, and Docker's default address pools hold about 30 networks on one host. Other projects, other tools' networks or leftovers have taken them all.",
      suggestedFix:
        'Remove networks nothing uses, or give Docker a larger pool in /etc/docker/daemon.json (for example {"default-address-pools":[{"base":"10.213.0.0/16","size":24}]}, 256 networks) and restart dockerd, then deploy again.',
      commands: ['docker network ls', 'docker network prune', 'sudo systemctl restart docker', redeploy],
    };
  },
};

const REFERENCE = /\$\{([^{}]+?)\.([A-Z_][A-Z0-9_]*)\}/g;

const unresolvedReference: BuiltinRule = {
  id: 'unresolved-variable-reference',
  explain({ reason }) {
    const m = reason.match(/variable (\S+) refers to (.+?), which no service of this project defines/);
    if (!m) return null;
    const variable = m[1]!;
    const references = [...m[2]!.matchAll(REFERENCE)].map((r) => ({ text: r[0], service: r[1]!, key: r[2]! }));
    const first = references[0];
    const named = references.map((r) => `${r.text} (variable ${r.key} of the service "${r.service}")`).join(', ');
    return {
      summary: `The variable ${variable} refers to ${m[2]}, which does not exist in this project, so Slipway stopped before building.`,
      likelyCause: `Slipway resolves \${service.VARIABLE} references within the project, finding the service by name or slug; ${named || m[2]} matched nothing. The service name or the variable name is misspelt (names are case-sensitive), the service is in another project, or that variable was never set or was deleted.`,
      suggestedFix: first
        ? `Either set ${first.key} on the service "${first.service}" of this project (TARGET_SERVICE_ID below is that service's id), or change ${variable} so that it refers to a service and variable that exist (check the names in the project's service overviews), then deploy again.`
        : `Fix the reference in ${variable} so it names an existing service and variable, then deploy again.`,
      // TARGET_SERVICE_ID: the id of the service the reference names.
      commands: [...(first ? [setVariable(first.key, '…', 'TARGET_SERVICE_ID')] : []), redeploy],
    };
  },
};

// Git's last `fatal:` line is in the reason (src/build/git-source.ts); ssh's own complaint only in the log.
const CLONE_FAILED = /^git clone failed: /;

const gitHostUnresolved: BuiltinRule = {
  id: 'git-host-unresolved',
  explain(input) {
    if (!CLONE_FAILED.test(input.reason)) return null;
    const m = inReasonOrLog(input, /Could not resolve host(?:name)?:? ([^\s'":]+)/);
    if (!m) return null;
    const host = m[1]!;
    const { repoUrl, branch } = input.context.service;
    return {
      summary: `git clone failed because the server could not resolve the Git host ${host}.`,
      likelyCause: `Git reported ${quote(m[0])}: the name ${host} does not resolve from the Slipway server. Either the repository URL (${repoUrl}) has a typo or names a host that does not exist (for owner/repo services it is built from SLIPWAY_GIT_BASE_URL), or the server's DNS is not working.`,
      suggestedFix: `Check the host in the repository URL; if it is right, fix name resolution on the Slipway server (/etc/resolv.conf, firewall on port 53) and deploy again.`,
      commands: [`getent hosts ${sh(host)}`, `git ls-remote ${sh(repoUrl)} ${sh(branch)}`, 'cat /etc/resolv.conf'],
    };
  },
};

const gitAuthentication: BuiltinRule = {
  id: 'git-authentication',
  explain(input) {
    if (!CLONE_FAILED.test(input.reason)) return null;
    const m =
      inReasonOrLog(input, /could not read Username for '([^']+)': terminal prompts disabled/) ??
      inReasonOrLog(input, /Authentication failed for '([^']+)'/) ??
      inReasonOrLog(input, /repository '([^']+)' not found/);
    if (!m) return null;
    const { repoUrl } = input.context.service;
    return {
      summary: 'git clone failed: the Git server refused to give the repository without valid credentials.',
      likelyCause: `Git reported ${quote(m[0])}. The repository is private and the service has no Git token, or its token is wrong, expired or lacks read access to this repository; or the URL (${repoUrl}) names a repository that does not exist.`,
      suggestedFix: 'Check the repository URL. For a private repository set a token with read access (for GitHub a fine-grained token with "Contents: read") as the service\'s gitToken, then deploy again.',
      commands: [`git ls-remote ${sh(repoUrl)}`, patchService({ gitToken: '<token with read access>' }), redeploy],
    };
  },
};

const gitBranchMissing: BuiltinRule = {
  id: 'git-branch-missing',
  explain(input) {
    if (!CLONE_FAILED.test(input.reason)) return null;
    const m = inReasonOrLog(input, /Remote branch (\S+) not found in upstream origin/);
    if (!m) return null;
    const { repoUrl } = input.context.service;
    return {
      summary: `git clone failed: the branch ${m[1]} does not exist in the repository.`,
      likelyCause: `Git reported ${quote(m[0])}. The service's branch setting names a branch that is not in ${repoUrl} (a typo, a renamed default branch such as master/main, or a branch not pushed yet).`,
      suggestedFix: 'List the branches of the repository and set the service\'s branch to an existing one (or push the branch), then deploy again.',
      commands: [`git ls-remote --heads ${sh(repoUrl)}`, patchService({ branch: 'main' }), redeploy],
    };
  },
};

const cloneTimeout: BuiltinRule = {
  id: 'git-clone-timeout',
  explain({ reason, context }) {
    const m = reason.match(/^git clone did not finish within (\d+) s/);
    if (!m) return null;
    const { repoUrl, branch } = context.service;
    return {
      summary: `git clone did not finish within ${m[1]} s and was stopped.`,
      likelyCause: `The Git server at ${repoUrl} accepted the connection but did not send the repository in time: it is slow or hangs, a firewall drops the traffic, or the repository is very large.`,
      suggestedFix: `Time a shallow clone from the Slipway server. If the server is just slow or the repository large, raise SLIPWAY_CLONE_TIMEOUT (seconds) and restart Slipway; if it hangs, fix the network path to the Git server.`,
      commands: [`time git clone --depth 1 --branch ${sh(branch)} ${sh(repoUrl)} /tmp/slipway-clone-check`, 'rm -rf /tmp/slipway-clone-check'],
    };
  },
};

const rootDirMissing: BuiltinRule = {
  id: 'root-directory-missing',
  explain({ reason, context }) {
    const m = reason.match(/^the root directory (".*?") does not exist in the repository/);
    if (!m) return null;
    return {
      summary: `The service's root directory ${m[1]} is not in the checked-out branch ${context.service.branch}.`,
      likelyCause: `Slipway cloned the repository but found no directory ${m[1]} in it. rootDir is relative to the repository's top and case-sensitive; it may be misspelt, or exist only on another branch.`,
      suggestedFix: 'List the directories of the branch and set rootDir to the one holding the app (or clear it to build the repository root), then deploy again.',
      commands: [...checkout({ ...context, service: { ...context.service, rootDir: null } }), 'git ls-tree -d -r --name-only HEAD', patchService({ rootDir: null })],
    };
  },
};

const missingDockerfile: BuiltinRule = {
  id: 'missing-dockerfile',
  explain({ reason, context }) {
    const missing = reason.match(/buildMethod is "dockerfile" but there is no (\S+) in the service root directory/);
    const outside = reason.match(/the Dockerfile path (".*?") leaves the service root directory/);
    if (!missing && !outside) return null;
    const overridden = context.variableNames.includes('PLATFORM_DOCKERFILE_PATH');
    const root = context.service.rootDir ? `the root directory ${context.service.rootDir}` : 'the repository root';
    const override = overridden ? ' The variable PLATFORM_DOCKERFILE_PATH is set on this service and overrides dockerfilePath: check its value too.' : '';
    if (outside) {
      return {
        summary: `The Dockerfile path ${outside[1]} points outside the service root directory, which Slipway refuses.`,
        likelyCause: `dockerfilePath (or PLATFORM_DOCKERFILE_PATH) is relative to ${root} and may not leave it (no leading "../" or absolute path).${override}`,
        suggestedFix: 'Set dockerfilePath relative to the service root directory, or move rootDir up so that the Dockerfile is inside it, then deploy again.',
        commands: [patchService({ dockerfilePath: 'Dockerfile' }), redeploy],
      };
    }
    const file = missing![1]!;
    return {
      summary: `buildMethod is "dockerfile" but there is no ${file} in ${root}, so there was nothing to build.`,
      likelyCause: `Slipway looked for ${file} relative to ${root} on the branch ${context.service.branch} and did not find it: it is not committed, has another name or case (Dockerfile is case-sensitive), or lives in another directory.${override}`,
      suggestedFix: `Commit the Dockerfile at ${file} under ${root}, or set dockerfilePath to where it is (relative to the root directory), or set buildMethod to "auto" or "packbuilder" to let Slipway generate one.`,
      commands: [...checkout(context), "git ls-files | grep -i dockerfile", patchService({ buildMethod: 'auto' })],
    };
  },
};

const nothingToBuild: BuiltinRule = {
  id: 'nothing-to-build',
  explain({ reason, context }) {
    if (!/could not detect how to build this app/.test(reason)) return null;
    return {
      summary: 'The packbuilder found nothing it knows how to build in the service root directory.',
      likelyCause: `Slipway recorded ${quote(reason)}. With no Dockerfile, the packbuilder needs package.json (Node.js), requirements.txt, pyproject.toml, main.py or app.py (Python), go.mod (Go) or index.html (static) in ${context.service.rootDir ? `the root directory ${context.service.rootDir}` : 'the repository root'}. The app probably lives in a subdirectory (set rootDir) or those files are not committed.`,
      suggestedFix: 'Set rootDir to the directory holding the app, or commit a Dockerfile or one of those files, then deploy again.',
      commands: [...checkout(context), 'ls -a', patchService({ rootDir: 'path/to/app' })],
    };
  },
};

const missingStart: BuiltinRule = {
  id: 'missing-start-command',
  explain(input) {
    const { context, reason } = input;
    const packbuilder = reason.match(/packbuilder: (Node\.js|Python) app without a start command/);
    const script =
      find(input.lines, /missing script:\s*"?start"?/i) ?? find(input.lines, /error Command "start" not found/) ?? find(input.lines, /ERR_PNPM_NO_SCRIPT\b.*\bstart\b/);
    if (!packbuilder && !script) return null;
    const port = context.service.internalPort;
    if (packbuilder?.[1] === 'Python') {
      return {
        summary: 'The packbuilder could not tell how to start this Python app, so it did not build it.',
        likelyCause: `Slipway recorded ${quote(reason)}: the service has no startCommand, the repository has no Procfile with a "web:" line, and there is no manage.py, main.py, app.py or server.py at the service root.`,
        suggestedFix: `Set the service's startCommand (for example "gunicorn app:app --bind 0.0.0.0:$PORT"), or commit a Procfile with a "web:" line. The app must listen on 0.0.0.0 and the port in PORT (${port}).`,
        commands: ["echo 'web: gunicorn app:app --bind 0.0.0.0:$PORT' > Procfile", patchService({ startCommand: 'gunicorn app:app --bind 0.0.0.0:$PORT' }), redeploy],
      };
    }
    const quoted = packbuilder ? quote(reason) : quote(script![0]);
    return {
      summary: 'The Node.js app has no start command: package.json defines no "start" script and the service sets no startCommand.',
      likelyCause: packbuilder
        ? `Slipway recorded ${quoted}: package.json has no "start" script and no "main", there is no server.js, index.js or app.js, and the service's startCommand is empty.`
        : `The container ran the start script and the package manager answered ${quoted}: package.json has no "start" script.`,
      suggestedFix: `Add a "start" script to package.json that runs the server (for example "node server.js"), or set the service's startCommand. The server must listen on 0.0.0.0 and the port in PORT (${port}).`,
      commands: ['npm pkg set scripts.start="node server.js"', 'git commit -am "Add a start script" && git push', patchService({ startCommand: 'node server.js' })],
    };
  },
};

const lockfileMismatch: BuiltinRule = {
  id: 'lockfile-mismatch',
  explain(input) {
    const m =
      find(input.lines, /can only install packages when your package\.json and package-lock\.json(?: or npm-shrinkwrap\.json)? are in sync/) ??
      find(input.lines, /Your lockfile needs to be updated, but yarn was run with `--frozen-lockfile`/) ??
      find(input.lines, /The lockfile would have been modified by this install, which is explicitly forbidden/) ??
      find(input.lines, /ERR_PNPM_OUTDATED_LOCKFILE|Cannot install with "frozen-lockfile" because pnpm-lock\.yaml is not up to date/);
    if (!m) return null;
    const line = m.input ?? m[0];
    const pm = /ERR_PNPM|pnpm-lock/.test(line) ? 'pnpm' : /yarn|lockfile would have been modified/.test(line) ? 'yarn' : 'npm';
    const lockfile = LOCKFILE[pm];
    const details = input.lines.filter((l) => /^npm (ERR!|error) (Missing|Invalid): /.test(l)).slice(0, 3);
    const installer = { npm: 'npm ci', yarn: 'yarn install --frozen-lockfile', pnpm: 'pnpm install --frozen-lockfile' }[pm];
    return {
      summary: `The dependency install failed: ${lockfile} is out of sync with package.json, and ${installer} refuses to change it.`,
      likelyCause: `The install step reported ${quote(line)}${details.length > 0 ? `, with ${details.map(quote).join(', ')}` : ''}. package.json was changed (a dependency added, removed or bumped) without updating ${lockfile}, or the lockfile was written by another ${pm} version.`,
      suggestedFix: `Run ${pm} install locally, commit the updated ${lockfile} and push, then deploy again.${pm === 'npm' ? '' : ` Slipway's packbuilder installs ${pm === 'pnpm' ? 'pnpm 9' : 'yarn 1'}; a lockfile from another major version can also be refused.`}`,
      commands: [`${pm} install`, `git add ${lockfile} package.json`, `git commit -m "Update ${lockfile}"`, 'git push', redeploy],
    };
  },
};

/** The engine killed a container at the memory limit the service (or the installation's default) set. */
function overLimit(reason: string, limit: string) {
  return {
    summary: `The app used more memory than its limit of ${limit} and the kernel killed it.`,
    likelyCause: `The service runs with a memory limit of ${limit} (its \`resources.memory\`, or the installation's \`defaultResources\`), and the deployment failed with ${quote(reason)}: the app needs more than that to start.`,
    suggestedFix: `Raise the limit (PATCH the service with \`{"resources": {"memory": "…"}}\`, or \`null\` for none), or make the app use less at start (fewer workers or threads, smaller caches; for Node NODE_OPTIONS=--max-old-space-size=… below the limit). Then deploy again.`,
    commands: ['docker stats --no-stream', redeploy],
  };
}

const outOfMemory: BuiltinRule = {
  id: 'out-of-memory',
  explain(input) {
    const { reason } = input;
    const killed = reason.match(/(?:exited with code|returned a non-zero code:|exit code:) 137\b|was killed: out of memory/);
    const oom = find(input.lines, /OOMKilled|Out of memory: Killed process|JavaScript heap out of memory/);
    const limit = /out of memory \(limit ([^)]+)\)/.exec(reason)?.[1];
    if (limit) return overLimit(reason, limit);
    if (!killed && !oom) return null;
    const during = /^docker build/.test(reason) ? 'build' : 'start';
    const heap = oom && /JavaScript heap out of memory/.test(oom[0]);
    const evidence = [killed ? `the reason ${quote(reason)}` : null, oom ? `the log line ${quote(oom.input ?? oom[0])}` : null].filter(Boolean).join(' and ');
    return {
      summary: heap
        ? `The ${during === 'build' ? 'build' : 'app'} ran out of JavaScript heap memory and Node.js stopped it.`
        : `The ${during === 'build' ? 'build' : 'app'} ran out of memory and was killed${killed ? ' (exit code 137: SIGKILL)' : ''}.`,
      likelyCause: heap
        ? `Node.js hit its heap limit: ${evidence}. The ${during} needs more memory than Node's default heap allows, or more than the server has.`
        : `Exit code 137 means the process was killed with SIGKILL, almost always by the kernel's out-of-memory killer (${evidence}). No memory limit was set for it, so the server itself ran out of memory during the ${during}.`,
      suggestedFix:
        during === 'build'
          ? 'Give the build more memory: add swap or RAM to the server, or make the build lighter (for Node, limit the heap with NODE_OPTIONS=--max-old-space-size=… in the Dockerfile; build fewer things in parallel). Then deploy again.'
          : 'Reduce the app\'s memory use at start (fewer workers or threads, smaller caches; for Node NODE_OPTIONS=--max-old-space-size=…), or add memory or swap to the server. Then deploy again.',
      commands: ['free -m', 'docker stats --no-stream', "sudo dmesg | grep -i -E 'killed process|out of memory'", ...(heap ? [setVariable('NODE_OPTIONS', '--max-old-space-size=512')] : [])],
    };
  },
};

// "Listening on port 3000", "Uvicorn running on http://127.0.0.1:8000", "listening on :8080"; a bare colon only after a space (not 12:30:45).
const LISTENING =
  /\b(?:listening|running|started|serving|server|ready|bound|local)\b.*?(?:\bport\b\s*:?\s*(?<port>\d{2,5})\b|(?:(?:https?:\/\/)?(?<host>0\.0\.0\.0|127\.0\.0\.1|localhost|\[::1?\]|\*)|\s):(?<hostPort>\d{2,5})\b)/i;
const LOOPBACK = /^(127\.0\.0\.1|\[::1\])$/;

const portNotOpened: BuiltinRule = {
  id: 'port-not-opened',
  explain(input) {
    const m = input.reason.match(/the app did not answer HTTP on port (\d+) within (\d+) s/);
    if (!m) return null;
    const port = input.context.service.internalPort;
    const seconds = m[2]!;
    const heard = find(lastStage(input.lines).filter((l) => !OWN_LINE.test(l)), LISTENING);
    const heardPort = heard ? Number(heard.groups?.port ?? heard.groups?.hostPort) : null;
    const loopback = LOOPBACK.test(heard?.groups?.host ?? '');
    const portVariable = input.context.variableNames.includes('PORT');
    const base = `Slipway started the container with PORT=${port} (the service's internalPort) and waited ${seconds} s for an HTTP answer on port ${port}; none came.`;
    let likelyCause: string;
    let suggestedFix: string;
    const commands: string[] = [];
    const bindHint = `Bind to 0.0.0.0 on port $PORT: for example app.listen(process.env.PORT, '0.0.0.0'), uvicorn --host 0.0.0.0 --port $PORT, gunicorn --bind 0.0.0.0:$PORT, flask run --host 0.0.0.0.`;
    if (heard && heardPort !== null && heardPort !== port) {
      likelyCause = `The app listens on port ${heardPort}, not ${port}: it logged ${quote(heard.input ?? heard[0])}. ${portVariable ? `PORT is set as a service variable, so Slipway does not set it to ${port}; ` : 'It ignores the PORT variable, '}and Slipway waits on internalPort ${port}.${loopback ? ' It also listens only on the loopback address, which nothing outside the container reaches.' : ''}`;
      suggestedFix = `Make the app listen on process.env.PORT / $PORT (port ${port}), or set the service's internalPort to ${heardPort}.${loopback ? ` ${bindHint}` : ''}`;
      commands.push(patchService({ internalPort: heardPort }));
    } else if (heard && loopback) {
      likelyCause = `The app listens only on the container's loopback address: it logged ${quote(heard!.input ?? heard![0])}. Connections from outside the container never reach it.`;
      suggestedFix = `${bindHint} Slipway sets PORT=${port}.`;
    } else {
      likelyCause = `${portVariable ? `PORT is set as a service variable, so the app may listen on that value rather than ${port}. ` : ''}The app never opened port ${port} on 0.0.0.0: it listens on another port or only on 127.0.0.1, is not a web server at all, or needed longer than ${seconds} s to start.`;
      suggestedFix = `Make the app listen on 0.0.0.0 and the port in $PORT (${port}), or set internalPort to the port it uses. A process that serves no HTTP belongs in runtimeMode "worker"; a slow start needs a larger SLIPWAY_START_TIMEOUT.`;
    }
    commands.push(...runLocally(input.context), `curl -i http://127.0.0.1:${port}/`);
    return {
      summary: `The app started but did not answer HTTP on port ${port} within ${seconds} s.`,
      likelyCause: `${base} ${likelyCause}`,
      suggestedFix: `${suggestedFix} Then deploy again.`,
      commands,
    };
  },
};

const EXIT_MEANING: Record<string, string> = {
  '0': 'it exited normally: the start command ended instead of keeping a server running (a one-off script, a build command, or a process that daemonizes)',
  '1': 'the app stopped on an error',
  '126': 'the start command is not executable (permissions or a wrong file)',
  '127': 'the start command was not found in the image (a typo, or a tool not installed in it)',
  '139': 'it crashed with a segmentation fault',
  '143': 'it was stopped with SIGTERM',
};

const crashedOnStart: BuiltinRule = {
  id: 'crashed-on-start',
  explain(input) {
    const m = input.reason.match(/the (container|database) exited with code (\S+) before it (?:was ready|answered)/);
    if (!m) return null;
    const code = m[2]!;
    const line = errorLine(input.lines) ?? lastOutputLine(lastStage(input.lines));
    const meaning = EXIT_MEANING[code] ?? 'the app stopped on an error';
    return {
      summary: `The ${m[1]} exited with code ${code} while starting${line ? `, after logging ${quote(line)}` : ''}.`,
      likelyCause: `Exit code ${code}: ${meaning}.${line ? ` The most relevant line of its output is ${quote(line)}.` : ' It wrote nothing that names an error.'}`,
      suggestedFix: `Fix what the output names${code === '127' || code === '126' ? ' (check the start command and that the image contains it)' : ''}, run the image locally with the same PORT to confirm it stays up, then deploy again. Variables the app needs at start must be set on the service.`,
      commands: runLocally(input.context),
    };
  },
};

const PULL_CAUSES: [RegExp, string, string][] = [
  [
    /manifest unknown|manifest for \S+ not found|not found: manifest/i,
    'the registry has no such tag: the tag (or the whole image name) is misspelt or was never pushed',
    'Check the tags the registry has and set the service to an existing one.',
  ],
  [
    /pull access denied|denied|unauthorized|authentication required|may require 'docker login'/i,
    'the registry refused the pull: the repository does not exist or is private. Slipway pulls without registry credentials',
    'Use a public image, fix the name, or pull the private image once on the Slipway server after docker login: an image already present is used without pulling.',
  ],
  [
    /no such host|lookup \S+|dial tcp|i\/o timeout|connection refused|TLS handshake timeout|server misbehaving|network is unreachable/i,
    'the Slipway server could not reach the registry (DNS, firewall or proxy)',
    'Fix the server\'s network path to the registry, or pull the image on the server by other means; then deploy again.',
  ],
];

// A build's FROM image that the engine could not pull; "permission denied" and the like are build errors.
const BASE_IMAGE_MISSING = /manifest unknown|manifest for \S+ not found|pull access denied|repository does not exist|may require 'docker login'/i;

const REGISTRY_UNREACHABLE = PULL_CAUSES[2]![0];

const ENGINE_SETTINGS: Record<string, ImageSettingName> = {
  postgres: 'dbImagePostgres',
  timeseries: 'dbImageTimeseries',
  mysql: 'dbImageMysql',
  redis: 'dbImageRedis',
  mongodb: 'dbImageMongodb',
  columnar: 'dbImageColumnar',
};

/**
 * For an image the installation chose (a packbuilder base, a database engine's image): the setting that names
 * it, how to change it, and that `npm run images` builds local stand-ins when no registry is reachable.
 */
function imageSettingAdvice(c: FailureContext, image: string): { fix: string; commands: string[] } | null {
  const engineSetting = c.service.kind === 'database' && c.service.engine ? ENGINE_SETTINGS[c.service.engine] : undefined;
  const setting = engineSetting ?? (c.imageSettings ? imageSettingOf(c.imageSettings, image)?.setting : undefined);
  if (!setting) return null;
  const variable = IMAGE_SETTINGS[setting];
  return {
    fix:
      ` The image comes from the installation setting ${setting} (environment variable ${variable}): point it at an image the server has or can pull, ` +
      `through the API (PATCH /api/settings, no restart) or in Slipway's environment. Without a reachable registry, \`npm run images\` in Slipway's checkout builds local stand-ins and prints the settings that use them.`,
    commands: [
      'npm run images',
      `slipway settings set ${setting}=IMAGE`,
      `curl -s -XPATCH "$SLIPWAY_URL/api/settings" ${API_HEADERS} -H 'content-type: application/json' -d ${sh(JSON.stringify({ [setting]: 'IMAGE' }))}`,
    ],
  };
}

const imagePull: BuiltinRule = {
  id: 'image-pull-failed',
  explain(input) {
    const { reason } = input;
    const pull = reason.match(/^pulling (\S+) (?:failed: (.*)|did not finish within (\d+) s)$/);
    const lastStep = [...input.lines].reverse().find((l) => /^Step \d+\/\d+ : /.test(l));
    // The engine stopped at a FROM line because it could not reach the base image's registry.
    const baseUnreachable = Boolean(lastStep && /^Step \d+\/\d+ : FROM /.test(lastStep) && REGISTRY_UNREACHABLE.test(reason));
    const fromBuild = /^docker build failed: /.test(reason) && (BASE_IMAGE_MISSING.test(reason) || baseUnreachable);
    if (!pull && !fromBuild) return null;
    const base = baseUnreachable ? lastStep!.match(/^Step \d+\/\d+ : FROM (\S+)/) : find(input.lines, /^Step \d+\/\d+ : FROM (\S+)/);
    const image = pull?.[1] ?? reason.match(/(?:pull access denied for|manifest for) (\S+?),? /)?.[1] ?? base?.[1] ?? input.context.service.dockerImage ?? 'the image';
    const message = pull ? (pull[2] ?? '') : reason.slice('docker build failed: '.length);
    const setting = imageSettingAdvice(input.context, image);
    if (pull?.[3]) {
      return {
        summary: `Pulling the image ${image} did not finish within ${pull[3]} s.`,
        likelyCause: `The registry of ${image} accepted the connection but sent the image too slowly or not at all: a slow or blocked network path, a registry that hangs, or a very large image.`,
        suggestedFix: `Pull ${image} by hand on the Slipway server to see how long it takes. If it completes, deploy again (an image already present is not pulled again) or raise SLIPWAY_PULL_TIMEOUT; if it hangs, fix the network path to the registry.${setting?.fix ?? ''}`,
        commands: [`time docker pull ${sh(image)}`, redeploy, ...(setting?.commands ?? [])],
      };
    }
    const [, cause, fix] = PULL_CAUSES.find(([p]) => p.test(message)) ?? [null, 'the registry or the network refused the pull', 'Pull the image by hand on the Slipway server to see the full error.'];
    const where = setting ? '' : fromBuild ? ' The image is named in the FROM line of the Dockerfile.' : '';
    return {
      summary: `The image ${image} could not be pulled${fromBuild ? ' as the base image of the build' : ''}.`,
      likelyCause: `The Docker engine answered ${quote(message)}: ${cause}.`,
      suggestedFix: `${fix}${where}${setting?.fix ?? ''}`,
      commands: [`docker pull ${sh(image)}`, `docker manifest inspect ${sh(image)}`, ...(setting?.commands ?? [])],
    };
  },
};

const buildTimeout: BuiltinRule = {
  id: 'build-timeout',
  explain(input) {
    const m = input.reason.match(/^docker build did not finish within (\d+) s/);
    if (!m) return null;
    const step = [...input.lines].reverse().find((l) => /^Step \d+\/\d+ : /.test(l));
    const last = lastOutputLine(input.lines);
    return {
      summary: `The build did not finish within ${m[1]} s and was stopped.`,
      likelyCause: `The build was still running${step ? ` at ${quote(step)}` : ''}${last ? `, its last output being ${quote(last)}` : ''}. A step hangs (waiting for input, a network call that never ends, a server started during the build) or the build is simply slower than the limit.`,
      suggestedFix: 'Run the build locally to see whether that step ends. Make commands non-interactive and never start long-running processes in a RUN step; if the build is just slow, raise SLIPWAY_BUILD_TIMEOUT (seconds) and restart Slipway.',
      commands: isSource(input.context) ? [...checkout(input.context), 'time docker build .'] : [],
    };
  },
};

const staticOutputMissing: BuiltinRule = {
  id: 'static-output-missing',
  explain(input) {
    const m = find(input.lines, /^the build wrote none of: (.+)$/);
    if (!m) return null;
    const build = input.context.service.buildCommand ?? 'npm run build';
    return {
      summary: 'The static site built, but into a directory Slipway does not look in.',
      likelyCause: `The packbuilder serves the first of ${m[1]} that the build creates, and the build created none of them (${quote(m[0])}). The build writes somewhere else, or wrote nothing.`,
      suggestedFix: `Make the build write its output to dist, build, out, public or _site (most generators have an output-directory option), or build with your own Dockerfile.`,
      commands: [...checkout(input.context), build, 'ls -d dist build out public _site'],
    };
  },
};

const buildCommandFailed: BuiltinRule = {
  id: 'build-command-failed',
  explain(input) {
    const reason = input.reason.match(/^docker build failed: (.*)$/);
    if (!reason) return null;
    const failed =
      reason[1]!.match(/The command '(?:\/bin\/sh -c )?(.+)' returned a non-zero code: (\d+)/) ??
      reason[1]!.match(/process "(?:\/bin\/sh -c )?(.+)" did not complete successfully: exit code: (\d+)/);
    const command = failed?.[1] ?? null;
    const line = errorLine(input.lines);
    const { service } = input.context;
    const manager = command?.match(/^(npm|yarn|pnpm) /)?.[1];
    // A package script needs the dependencies installed first.
    const install = manager && !/^\S+ (install|ci)\b/.test(command!) ? [service.installCommand ?? `${manager} install`] : [];
    const replay = command ? [...install, command] : [service.installCommand, service.buildCommand].filter((c): c is string => Boolean(c));
    return {
      summary: command ? `The build step "${command}" failed with exit code ${failed![2]}.` : `The image build failed: ${quote(reason[1]!)}.`,
      likelyCause: line
        ? `The first error the build printed is ${quote(line)}.`
        : `The build stopped with ${quote(reason[1]!)} without printing a recognisable error line; the lines before it in the log show what it was doing.`,
      suggestedFix: `Fix the error${line ? ' quoted above' : ''} and run the same ${command ? 'command' : 'build'} locally in a clean checkout to confirm it passes, then deploy again. Service variables are given to the container when it starts, not to the build: a build that needs one must get it another way (a default in the code, or an ARG/ENV in your Dockerfile).`,
      commands: isSource(input.context)
        ? [...checkout(input.context), ...(replay.length > 0 ? replay : ['docker build .'])]
        : [],
    };
  },
};

/** Most specific first: the first rule that recognises the failure explains it (a lockfile error also fails the build). */
export const BUILTIN_RULES: readonly BuiltinRule[] = [
  interrupted,
  dockerUnreachable,
  networkPoolsExhausted,
  unresolvedReference,
  gitHostUnresolved,
  gitAuthentication,
  gitBranchMissing,
  cloneTimeout,
  rootDirMissing,
  missingDockerfile,
  nothingToBuild,
  lockfileMismatch,
  missingStart,
  outOfMemory,
  portNotOpened,
  crashedOnStart,
  imagePull,
  buildTimeout,
  staticOutputMissing,
  buildCommandFailed,
];

/** When no rule recognises the failure: the reason and the most relevant line, quoted as they are. */
export function fallbackExplanation({ reason, lines, context }: RuleInput): FailureExplanation {
  const line = errorLine(lines);
  const last = line ? null : lastOutputLine(lines);
  return {
    summary: reason ? `The deployment failed: ${quote(reason)}.` : 'The deployment failed without a recorded reason.',
    likelyCause: line
      ? `None of the built-in rules recognises this failure. The most relevant line of the log is ${quote(line)}.`
      : `None of the built-in rules recognises this failure, and the log shows no error line${last ? `; its last line is ${quote(last)}` : ''}.`,
    suggestedFix:
      'Read the log around that line to see which step failed, reproduce that step locally, fix it and deploy again. An AI provider (openai or anthropic) can give a fuller explanation of an unusual failure.',
    commands: runLocally(context),
  };
}
