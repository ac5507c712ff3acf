import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { z } from 'zod';
import { findProject } from '../../../projections/project-queries.js';
import { findService, listServicesOf, type ServiceRow } from '../../../projections/service-queries.js';
import { serveGitBackend } from '../../git/http-backend.js';
import { answerPreReceive } from '../../git/push-deploy.js';
import type { Slipway } from '../../slipway.js';
import { actorOf, canSee, isId, requireReach, requireWrite, twoFactorSetupRequired, writingAs } from '../auth.js';
import type { Principal, PrincipalCache } from '../principals.js';
import { clientAddressOf } from '../client-address.js';
import { HttpError, notFoundHttp } from '../errors.js';
import type { KeyFailureLimiter } from '../key-failure-limiter.js';
import { receivePushDeps } from '../receive-push-deps.js';

/** `/git/<serviceId>.git/…` or `/git/<project slug>/<service slug>.git/…`, then one of the smart-HTTP endpoints. */
const GIT_PATH = /^\/git\/(?:(?<id>[0-9a-f-]{36})|(?<project>[a-z0-9][a-z0-9-]*)\/(?<service>[a-z0-9][a-z0-9-]*))\.git(?<rest>\/.*)$/;
const SMART = /^\/(info\/refs|git-upload-pack|git-receive-pack)$/;
const gitService = z.enum(['git-upload-pack', 'git-receive-pack']);

const askForKey = (message: string) => new HttpError(401, 'unauthorized', message, [], { 'WWW-Authenticate': 'Basic realm="Slipway", charset="UTF-8"' });

/** The password of HTTP Basic auth (the user name is ignored): an API key, as git sends it from a credential helper or URL. */
function basicPassword(header: string): string | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  return password === '' ? null : password;
}

async function serviceAt(app: Slipway, path: { id?: string; project?: string; service?: string }): Promise<ServiceRow | null> {
  if (path.id) return isId(path.id) ? findService(app.db, path.id) : null;
  const project = await findProject(app.db, { slug: path.project! });
  if (!project) return null;
  return (await listServicesOf(app.db, [project.id])).find((s) => s.slug === path.service) ?? null;
}

/**
 * Each Git-source service's remote, served by `git http-backend` from its repository in the data directory.
 * The password is an API key, checked before anything else is read, failures counted like the API's; a
 * project the key cannot see answers like a missing one. Fetching needs a key that sees the project; pushing
 * needs a write key. A push to the service's branch deploys the pushed commit inside the push.
 */
export function gitRoutes(app: Slipway, keys: PrincipalCache, failures: KeyFailureLimiter) {
  return async (ctx: Context, next: Next) => {
    if (!ctx.path.startsWith('/git/')) return next();
    const path = GIT_PATH.exec(ctx.path)?.groups;
    const endpoint = path ? SMART.exec(path.rest!)?.[1] : undefined;
    if (!path || !endpoint) throw notFoundHttp('git repository');
    const wanted = endpoint === 'info/refs' ? gitService.safeParse(ctx.query.service) : gitService.safeParse(endpoint);
    if (!wanted.success) throw new HttpError(403, 'forbidden', 'only the smart HTTP protocol is served: use git 2 or later');
    if ((endpoint === 'info/refs') !== (ctx.method === 'GET' || ctx.method === 'HEAD')) throw new HttpError(405, 'method_not_allowed', `${ctx.method} is not allowed here`);

    const secret = basicPassword(ctx.get('authorization'));
    if (!secret) throw askForKey('an API key is needed: use it as the password of the remote (any user name)');
    const principal: Principal | null = await keys.find(secret);
    if (!principal) {
      await failures.failed(clientAddressOf(ctx), secret);
      throw askForKey('unknown or revoked API key');
    }
    if (principal.mustSetUpTwoFactor) throw twoFactorSetupRequired();
    const service = await serviceAt(app, path);
    if (!service || !canSee(principal, service.project_id)) throw notFoundHttp('service');
    if (service.kind !== 'source') throw new HttpError(404, 'not_found', 'only services built from Git source have a Git remote');
    const pushing = wanted.data === 'git-receive-pack';
    if (pushing) {
      requireWrite(principal);
      requireReach(writingAs(principal), service.project_id, 'service');
    }

    app.pushRepositories.ensure(service.id);
    ctx.respond = false;
    await serveGitBackend({
      req: ctx.req,
      res: ctx.res,
      projectRoot: app.pushRepositories.root,
      pathInfo: `/${service.id}.git${path.rest}`,
      query: ctx.querystring,
      remoteUser: actorOf(principal),
      env: await app.pushRepositories.configEnv(service.id),
      onHookChannel:
        pushing && endpoint !== 'info/refs'
          ? (channel) =>
              answerPreReceive(channel, {
                serviceId: service.id,
                branch: service.branch,
                branchTip: () => app.pushRepositories.branchTip(service.id, service.branch),
                overLimits: (updates) => app.pushRepositories.overLimits(service.id, updates),
                receive: receivePushDeps(app, app.commandContext(actorOf(principal), { correlationId: ctx.state.requestId ?? randomUUID() })),
                follow: { db: app.db, onApplied: (listener) => app.runner.onApplied(listener) },
              })
          : undefined,
    });
  };
}
