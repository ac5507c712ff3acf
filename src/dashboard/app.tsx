import { LocationProvider, Route, Router } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import { Layout } from './components/layout.js';
import { AuditLogScreen } from './screens/audit-log.js';
import { InstallationScreen } from './screens/installation.js';
import { ProjectsScreen } from './screens/projects.js';
import { ProjectScreen } from './screens/project.js';
import { ServiceScreen } from './screens/service.js';
import { DeploymentScreen } from './screens/deployment.js';
import { SignInScreen } from './screens/sign-in.js';
import { AccountScreen } from './screens/account.js';
import { TwoFactorRequiredScreen } from './screens/two-factor-required.js';
import { FirstOwnerScreen } from './screens/first-owner.js';
import { checkOwnerNeeded, ownerFormOpen } from './owner-needed.js';
import { AcceptInvitationScreen, invitationTokenOf } from './screens/accept-invitation.js';
import { session } from './session.js';
import { loadSession } from './session-actions.js';
import { closeChangeFeed, openChangeFeed } from './changes.js';

export function App() {
  useEffect(() => {
    void loadSession();
  }, []);
  // A person who must turn on two factors first reaches nothing else, the feed included.
  const signedIn = Boolean(session.value) && !session.value?.mustSetUpTwoFactor;
  // Every screen follows the server through one feed while someone is signed in.
  useEffect(() => {
    if (signedIn) openChangeFeed();
    else closeChangeFeed();
  }, [signedIn]);
  // An installation without an owner offers the key that may make one to do so first.
  const keyId = session.value?.keyId;
  useEffect(() => {
    void checkOwnerNeeded();
  }, [keyId]);
  // An invitation's link is for someone without an account: it opens its own page, signed in or not.
  const invitation = invitationTokenOf(location.pathname);
  if (invitation) return <AcceptInvitationScreen token={invitation} />;
  if (session.value === undefined) return <p class="loading" role="status">Loading…</p>;
  if (session.value === null) return <SignInScreen />;
  if (session.value.mustSetUpTwoFactor) return <TwoFactorRequiredScreen />;
  if (ownerFormOpen.value) return <FirstOwnerScreen />;
  return (
    <LocationProvider>
      <Layout>
        <Router>
          <Route path="/" component={ProjectsScreen} />
          <Route path="/projects/:projectId" component={ProjectScreen} />
          <Route path="/services/:serviceId" component={ServiceScreen} />
          <Route path="/deployments/:deploymentId" component={DeploymentScreen} />
          <Route path="/audit" component={AuditLogScreen} />
          {/* Its address before it was named the audit log (docs/GLOSSARY.md): old bookmarks still open it. */}
          <Route path="/history" component={AuditLogScreen} />
          <Route path="/installation" component={InstallationScreen} />
          <Route path="/account" component={AccountScreen} />
          <Route default component={NotFound} />
        </Router>
      </Layout>
    </LocationProvider>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        <a href="/">Back to the projects</a>
      </p>
    </section>
  );
}
