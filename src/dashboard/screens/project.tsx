import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useShownProject } from '../shown-project.js';
import { useRoute } from 'preact-iso';
import type { components } from '../../shared/api-types.js';
import { projectActivity } from '../activity.js';
import { api, messageOf, type GetAnswer } from '../api.js';
import { ErrorNote } from '../components/error-note.js';
import { NewService } from '../components/new-service.js';
import { ProjectActivity } from '../components/project-activity.js';
import { ProjectMembers } from '../components/project-members.js';
import { ServiceGraph } from '../components/service-graph.js';
import { Badge } from '../components/ui/badge.js';
import { EmptyState } from '../components/ui/empty-state.js';
import { ProjectsIcon } from '../components/ui/icons.js';
import { RelativeTime } from '../components/ui/relative-time.js';
import { Skeleton } from '../components/ui/skeleton.js';
import { useLiveReload } from '../live-reload.js';
import { canWrite } from '../session.js';
import '../styles/project.css';

type Project = GetAnswer<'/api/projects/{projectSlug}'>['project'];
type Reference = components['schemas']['ServiceReference'];
type AuditEvent = components['schemas']['AuditEvent'];

/** Newest first, without a build's log lines: enough events for the 20 requests shown, each of a few. */
const EVENTS = { order: 'desc', limit: 100, excludeType: 'DeploymentLogAppended' } as const;
const SHOWN = 20;
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** A project: its services as a graph of who uses whose variables, and what happened in it lately. */
export function ProjectScreen() {
  const projectId = useRoute().params.projectId!;
  const project = useSignal<Project | null>(null);
  const references = useSignal<Reference[]>([]);
  const events = useSignal<AuditEvent[]>([]);
  const missing = useSignal(false);
  const error = useSignal<string | null>(null);

  const load = async () => {
    const path = { params: { path: { projectId } } };
    const [p, r, e] = await Promise.all([
      api.GET('/api/projects/{projectSlug}', { params: { path: { projectSlug: projectId } } }),
      api.GET('/api/projects/{projectId}/references', path),
      api.GET('/api/projects/{projectId}/events', { params: { path: { projectId }, query: EVENTS } }),
    ]);
    missing.value = p.response.status === 404;
    if (p.error) return void (error.value = missing.value ? null : messageOf(p.error));
    error.value = r.error ? messageOf(r.error) : e.error ? messageOf(e.error) : null;
    project.value = p.data.project;
    references.value = r.data?.references ?? [];
    events.value = e.data?.events ?? [];
  };
  useEffect(() => {
    project.value = null;
    void load();
  }, [projectId]);
  // Whoever changes it (another person, the CLI, git push, a deployment finishing), the page follows.
  useLiveReload((change) => change.projectId === projectId, load);
  useShownProject(project.value?.id);

  if (missing.value)
    return (
      <section>
        <EmptyState title="No such project" icon={<ProjectsIcon />}>
          <p>
            It was deleted, or this key cannot see it. <a href="/">Back to the projects</a>
          </p>
        </EmptyState>
      </section>
    );
  const p = project.value;
  if (!p)
    return (
      <section>
        <ErrorNote message={error.value} />
        <Skeleton shape="cards" />
      </section>
    );
  const activity = projectActivity(events.value, p).slice(0, SHOWN);
  return (
    <section class="project-page">
      <div class="page-header">
        <div>
          <h1>
            {p.name} <Badge status={p.status} />
          </h1>
          {p.description && <p class="project-description">{p.description}</p>}
          <p class="project-meta">
            {count(p.services.length, 'service')} · {count(references.value.length, 'reference')} · updated <RelativeTime at={p.lastUpdatedAt} />
          </p>
        </div>
        {canWrite.value && <NewService projectId={p.id} projectName={p.name} />}
      </div>
      <ErrorNote message={error.value} />
      <section aria-labelledby="project-services" class="project-graph">
        <div class="section-title">
          <h2 id="project-services">Services</h2>
        </div>
        {p.services.length === 0 ? (
          <EmptyState title="No services yet" icon={<ProjectsIcon />} compact>
            <p>{canWrite.value ? 'Add an image, a repository or a database with Add a service, above.' : 'A write key can add one.'}</p>
          </EmptyState>
        ) : (
          <ServiceGraph services={p.services} references={references.value} label={`Services of ${p.name}`} />
        )}
      </section>
      <ProjectMembers projectId={p.id} projectName={p.name} />
      <section aria-labelledby="project-activity" class="project-activity">
        <div class="section-title">
          <h2 id="project-activity">Activity</h2>
          <a class="activity-all" href="/audit">
            Audit log
          </a>
        </div>
        <ProjectActivity items={activity} />
      </section>
    </section>
  );
}
