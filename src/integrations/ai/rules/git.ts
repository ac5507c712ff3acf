import { inReasonOrLog, quote } from './log-lines.js';
import { checkout, patchService, redeploy, sh } from './commands.js';
import type { BuiltinRule } from './rule.js';

// Git's last `fatal:` line is in the reason (src/build/git-source.ts); ssh's own complaint only in the log.
const CLONE_FAILED = /^git clone failed: /;

export const gitHostUnresolved: BuiltinRule = {
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

export const gitAuthentication: BuiltinRule = {
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

export const gitBranchMissing: BuiltinRule = {
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

export const cloneTimeout: BuiltinRule = {
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

export const rootDirMissing: BuiltinRule = {
  id: 'root-directory-missing',
  explain({ reason, context, lines }) {
    const m = reason.match(/^the root directory (".*?") does not exist in the repository/);
    if (!m) return null;
    return {
      summary: `The service's root directory ${m[1]} is not in the checked-out branch ${context.service.branch}.`,
      likelyCause: `Slipway cloned the repository but found no directory ${m[1]} in it. rootDir is relative to the repository's top and case-sensitive; it may be misspelt, or exist only on another branch.`,
      suggestedFix: 'List the directories of the branch and set rootDir to the one holding the app (or clear it to build the repository root), then deploy again.',
      commands: [...checkout({ ...context, service: { ...context.service, rootDir: null } }, lines), 'git ls-tree -d -r --name-only HEAD', patchService({ rootDir: null })],
    };
  },
};
