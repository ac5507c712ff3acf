import { find, quote } from './log-lines.js';
import { checkout, patchService, redeploy } from './commands.js';
import type { BuiltinRule } from './rule.js';

const LOCKFILE = { npm: 'package-lock.json', yarn: 'yarn.lock', pnpm: 'pnpm-lock.yaml' } as const;

export const missingDockerfile: BuiltinRule = {
  id: 'missing-dockerfile',
  explain({ reason, context, lines }) {
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
      commands: [...checkout(context, lines), "git ls-files | grep -i dockerfile", patchService({ buildMethod: 'auto' })],
    };
  },
};

export const nothingToBuild: BuiltinRule = {
  id: 'nothing-to-build',
  explain({ reason, context, lines }) {
    if (!/could not detect how to build this app/.test(reason)) return null;
    return {
      summary: 'The packbuilder found nothing it knows how to build in the service root directory.',
      likelyCause: `Slipway recorded ${quote(reason)}. With no Dockerfile, the packbuilder needs package.json (Node.js), requirements.txt, pyproject.toml, main.py or app.py (Python), go.mod (Go) or index.html (static) in ${context.service.rootDir ? `the root directory ${context.service.rootDir}` : 'the repository root'}. The app probably lives in a subdirectory (set rootDir) or those files are not committed.`,
      suggestedFix: 'Set rootDir to the directory holding the app, or commit a Dockerfile or one of those files, then deploy again.',
      commands: [...checkout(context, lines), 'ls -a', patchService({ rootDir: 'path/to/app' })],
    };
  },
};

export const missingStart: BuiltinRule = {
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

export const lockfileMismatch: BuiltinRule = {
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

export const staticOutputMissing: BuiltinRule = {
  id: 'static-output-missing',
  explain(input) {
    const m = find(input.lines, /^the build wrote none of: (.+)$/);
    if (!m) return null;
    const build = input.context.service.buildCommand ?? 'npm run build';
    return {
      summary: 'The static site built, but into a directory Slipway does not look in.',
      likelyCause: `The packbuilder serves the first of ${m[1]} that the build creates, and the build created none of them (${quote(m[0])}). The build writes somewhere else, or wrote nothing.`,
      suggestedFix: `Make the build write its output to dist, build, out, public or _site (most generators have an output-directory option), or build with your own Dockerfile.`,
      commands: [...checkout(input.context, input.lines), build, 'ls -d dist build out public _site'],
    };
  },
};
