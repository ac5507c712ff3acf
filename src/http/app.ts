import Router from '@koa/router';
import Koa from 'koa';
import type { Slipway } from '../slipway.js';
import { authenticate } from './auth.js';
import { PersonPrincipalCache, PrincipalCache } from './principals.js';
import { errorHandler } from './errors.js';
import { idempotency } from './idempotency.js';
import { DEFAULT_IDEMPOTENCY_TIMES, IdempotencyStore } from './idempotency-store.js';
import { correlation, requestId } from './request-id.js';
import { securityHeaders } from './security-headers.js';
import { correlationTakenByOtherKey } from '../../projections/audit-queries.js';
import { jsonBody } from './json-body.js';
import { DeliveryFailureLimiter } from './hooks/delivery-failure-limiter.js';
import { HookBodyReader } from './hooks/raw-body.js';
import { KeyFailureLimiter } from './key-failure-limiter.js';
import { backupRoutes } from './routes/backups.js';
import { jobRoutes } from './routes/jobs.js';
import { databaseRoutes } from './routes/database.js';
import { importRoutes } from './routes/imports.js';
import { aiProviderRoutes } from './routes/ai-providers.js';
import { dnsProviderRoutes } from './routes/dns-providers.js';
import { clusterRoutes } from './routes/cluster.js';
import { settingsRoutes } from './routes/settings.js';
import { deploymentRoutes } from './routes/deployments.js';
import { jobRunRoutes } from './routes/job-runs.js';
import { releaseRoutes } from './routes/releases.js';
import { explainFailureRoutes } from './routes/explain-failure.js';
import { domainRoutes } from './routes/domains.js';
import { envRoutes } from './routes/env.js';
import { execRoutes } from './routes/exec.js';
import { ExecSessions } from './exec/exec-sessions.js';
import { auditRoutes } from './routes/audit.js';
import { changeRoutes } from './routes/changes.js';
import { ChangeFeed } from './change-feed.js';
import { healthRoutes } from './routes/health.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { notificationChannelRoutes } from './routes/notification-channels.js';
import { projectRoutes } from './routes/projects.js';
import { serviceRoutes } from './routes/services.js';
import { autoDeployRoutes } from './routes/auto-deploy.js';
import { hookRoutes } from './routes/hooks.js';
import { ServiceScopeCache } from './service-scope-cache.js';
import { openApiRoutes } from './routes/openapi.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { gitRoutes } from './routes/git.js';
import { sessionRoutes, signInRoutes } from './routes/sessions.js';
import { peopleRoutes } from './routes/people.js';
import { invitationAcceptRoutes, invitationRoutes } from './routes/invitations.js';
import { mailSettingsRoutes } from './routes/mail-settings.js';
import { installationMail } from '../integrations/mail/installation-mail.js';
import { ownerMail } from '../people/owner-mail.js';
import { SignInAlerts } from '../people/sign-in-alert.js';
import { oidcSettingsRoutes, oidcSignInRoutes } from './routes/oidc.js';
import { People } from '../people/people.js';
import { CredentialStore } from '../people/credentials.js';
import { SessionAuth } from './session-auth.js';
import { SessionStore } from './session-store.js';
import { route } from './contract/endpoint.js';
import { metaApi } from './contract/meta.js';

const ROUTERS = new WeakMap<Koa, Router[]>();
const EXEC_SESSIONS = new WeakMap<Koa, ExecSessions>();

/** Ends the app's open terminal sessions and waits until their ends are recorded (before the store stops). */
export const closeExecSessions = (koa: Koa): Promise<void> => EXEC_SESSIONS.get(koa)?.shutdown() ?? Promise.resolve();

/** Every method and path the app's routers answer (Koa's form, `:param`), HEAD left out. */
export function registeredRoutes(koa: Koa): { method: string; path: string }[] {
  return (ROUTERS.get(koa) ?? []).flatMap((r) =>
    r.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((method) => ({ method: method.toLowerCase(), path: layer.path as string }))),
  );
}

export function createHttpApp(app: Slipway): Koa {
  const koa = new Koa({ proxy: false });
  const router = new Router();
  route(router, metaApi.liveness, (ctx) => {
    ctx.body = { ok: true, projections: app.runner.position };
  });
  openApiRoutes(router, app);
  // An API request keeps a sleeping store awake (its statements wake it); /healthz and the documents do not.
  const keepAwake = async (_ctx: Koa.Context, next: Koa.Next) => {
    app.db.touch();
    try {
      await next();
    } finally {
      app.db.touch();
    }
  };
  const people = new PersonPrincipalCache(app.db, app.runner, async () => (await app.settings()).requireTwoFactor);
  const keys = new PrincipalCache(app.db, app.runner, people);
  const keyFailures = new KeyFailureLimiter(app.config.keyFailuresPerMinute, app.log);
  const sessions = new SessionAuth(new SessionStore(app.db), keys, people, keyFailures, async () => {
    const settings = await app.settings();
    return { idleMs: settings.sessionIdleMinutes * 60_000, maxMs: settings.sessionMaxHours * 3_600_000 };
  });
  // Signing in takes the key in its body, so it comes before the key check.
  const signIn = new Router();
  signIn.use(keepAwake);
  signIn.use(jsonBody(app.config.bodyLimit));
  const mailer = installationMail(app);
  const directory = new People(new CredentialStore(app.db), app.keyring, new SignInAlerts(ownerMail(app.db, app.keyring, mailer), app.log));
  signInRoutes(signIn, app, keys, keyFailures, sessions, { directory, principals: people });
  invitationAcceptRoutes(signIn, app, directory, keyFailures, sessions);
  oidcSignInRoutes(signIn, app, { principals: people, sessions, people: directory });
  // Git hosts' deliveries carry no key: their own signature over the raw body, read by the route itself.
  const hooks = new Router();
  hooks.use(keepAwake);
  hookRoutes(hooks, app, new DeliveryFailureLimiter(app.config.keyFailuresPerMinute, app.log), new HookBodyReader());
  const api = new Router();
  api.use(keepAwake);
  api.use(authenticate(keys, keyFailures, sessions));
  api.use(jsonBody(app.config.bodyLimit));
  api.use(correlation((id, actor) => correlationTakenByOtherKey(app.db, id, actor)));
  const idempotencyStore = new IdempotencyStore(app.db, app.keyring, { ...DEFAULT_IDEMPOTENCY_TIMES, abandonAfterMs: app.config.idempotencyAbandonAfterMs });
  idempotencyStore.prepare().catch((error: unknown) => app.log.error('could not create the idempotency table', { error: String(error) }));
  api.use(idempotency(idempotencyStore, app.log));
  projectRoutes(api, app);
  serviceRoutes(api, app);
  const scopes = new ServiceScopeCache(app.db, app.runner);
  envRoutes(api, app, scopes);
  domainRoutes(api, app, scopes);
  deploymentRoutes(api, app);
  const execSessions = new ExecSessions();
  execRoutes(api, app, execSessions);
  releaseRoutes(api, app);
  jobRunRoutes(api, app);
  autoDeployRoutes(api, app);
  explainFailureRoutes(api, app);
  databaseRoutes(api, app);
  backupRoutes(api, app);
  jobRoutes(api, app);
  importRoutes(api, app);
  settingsRoutes(api, app);
  dnsProviderRoutes(api, app);
  aiProviderRoutes(api, app);
  oidcSettingsRoutes(api, app);
  mailSettingsRoutes(api, app);
  apiKeyRoutes(api, app);
  notificationChannelRoutes(api, app);
  clusterRoutes(api, app);
  auditRoutes(api, app, directory);
  const changes = new ChangeFeed(app.db, app.runner, (error) => app.log.error('the change feed could not read a batch', { error: String(error) }));
  changeRoutes(api, app, changes, { keys, sessions });
  healthRoutes(api, app);
  sessionRoutes(api, app, sessions, directory);
  peopleRoutes(api, app, directory, sessions);
  invitationRoutes(api, app, directory, mailer);

  // A client that goes away mid-stream (SSE) is normal, not an error worth a line.
  koa.on('error', (error: { code?: string }) => {
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE' || error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
    app.log.error('http error', { error: String(error) });
  });
  koa.use(requestId());
  koa.use(securityHeaders());
  koa.use(errorHandler(app.log));
  koa.use(router.routes());
  koa.use(hooks.routes());
  koa.use(signIn.routes());
  // Before the API's body parser: a push's body is streamed to git as it arrives.
  koa.use(gitRoutes(app, keys, keyFailures));
  koa.use(api.routes());
  // Not thrown: the router sets `Allow` only when it answers itself; errorHandler adds the error body.
  koa.use(api.allowedMethods());
  // Last: every address that is not the API's or the Git remote's is a page of the dashboard.
  koa.use(dashboardRoutes());
  ROUTERS.set(koa, [router, hooks, signIn, api]);
  EXEC_SESSIONS.set(koa, execSessions);
  return koa;
}
