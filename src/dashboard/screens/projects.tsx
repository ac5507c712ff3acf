import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf } from '../api.js';
import { askDialog } from '../components/ui/ask-dialog.js';
import { useLiveReload } from '../live-reload.js';
import { ErrorNote } from '../components/error-note.js';
import { canWrite } from '../session.js';
import { DangerButton } from '../components/danger-button.js';
import { HealthBadge } from '../components/service-health.js';
import { NewService } from '../components/new-service.js';
import { confirmDialog } from '../components/ui/dialog.js';
import { Badge } from '../components/ui/badge.js';
import { EmptyState } from '../components/ui/empty-state.js';
import { ProjectsIcon } from '../components/ui/icons.js';
import { RelativeTime } from '../components/ui/relative-time.js';
import { Skeleton } from '../components/ui/skeleton.js';
import { toast } from '../components/ui/toast.js';
import { loadProjects, projects, type Project } from '../projects-store.js';

type Service = Project['services'][number];

/** What a service runs, in a word: its database engine, an image, or code built from Git. */
const kindOf = (s: Service) => (s.repoUrl === 'database' ? (s.repoFullName ?? 'database').replace('database:', '') : s.repoUrl === 'docker-image' ? 'image' : 'git');
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

export function ProjectsScreen() {
  const error = useSignal<string | null>(null);
  const newName = useSignal('');
  const load = async () => {
    const failed = await loadProjects();
    if (failed) error.value = failed;
  };
  useEffect(() => {
    void load();
  }, []);
  // A project or service made, renamed, deployed or removed anywhere shows here as it happens.
  useLiveReload((change) => change.projectId !== null, load);

  const create = async (event: Event) => {
    event.preventDefault();
    const { error: failed } = await api.POST('/api/projects', { body: { name: newName.value } });
    if (failed) return void (error.value = messageOf(failed));
    toast(`Project ${newName.value} created`);
    newName.value = '';
    error.value = null;
    await load();
  };

  const rename = async (project: Project) => {
    const name = await askDialog({ title: `Rename ${project.name}`, body: 'Its slug, its services and their addresses stay as they are.', label: 'New name', value: project.name, confirmLabel: 'Rename' });
    if (!name || name === project.name) return;
    const { error: failed } = await api.PATCH('/api/projects/{projectId}', { params: { path: { projectId: project.id } }, body: { name } });
    if (failed) return void (error.value = messageOf(failed));
    toast(`${project.name} renamed to ${name}`);
    await load();
  };

  const remove = async (project: Project) => {
    const databases = project.services.filter((s) => s.repoUrl === 'database').length;
    const serviceCount = project.services.length;
    const services = serviceCount === 0 ? '' : ` and its ${serviceCount === 1 ? 'service' : `${serviceCount} services`}`;
    const data = databases === 0 ? '' : databases === 1 ? ', and a database with its data and backups' : `, and ${databases} databases with their data and backups`;
    const confirmed = await confirmDialog({
      title: `Delete project ${project.name}${services}?`,
      body: `${serviceCount ? `Every service stops: its containers, releases and domains go${data}. ` : ''}This cannot be undone.`,
      confirmLabel: 'Delete project',
      danger: true,
      typeToConfirm: project.name,
    });
    if (!confirmed) return;
    const { error: failed } = await api.DELETE('/api/projects/{projectId}', { params: { path: { projectId: project.id } } });
    if (failed) return void (error.value = messageOf(failed));
    toast(`Project ${project.name} deleted`);
    await load();
  };

  const all = projects.value;
  return (
    <section>
      <div class="page-header">
        <div>
          <h1>Projects</h1>
          {all && all.length > 0 && (
            <p>
              {count(all.length, 'project')} · {count(all.reduce((n, p) => n + p.services.length, 0), 'service')}
            </p>
          )}
        </div>
        {canWrite.value && (
          <form class="inline new-project" onSubmit={create}>
            <label for="new-project" class="visually-hidden">
              New project
            </label>
            <input id="new-project" required maxLength={100} placeholder="New project name" value={newName.value} onInput={(e) => (newName.value = e.currentTarget.value)} />
            <button type="submit">Create project</button>
          </form>
        )}
      </div>
      <ErrorNote message={error.value} />
      {all === null ? (
        <Skeleton shape="cards" />
      ) : all.length === 0 ? (
        <EmptyState title="No projects yet" icon={<ProjectsIcon />}>
          <p>{canWrite.value ? 'A project groups the services of one app: name one above to start.' : 'A write key can create one.'}</p>
        </EmptyState>
      ) : (
        <ul class="cards">
          {all.map((project) => (
            <li key={project.id} class="card">
              <h2>
                <a href={`/projects/${project.id}`}>{project.name}</a>
              </h2>
              <p class="project-meta">
                {count(project.services.length, 'service')} · updated <RelativeTime at={project.lastUpdatedAt} />
              </p>
              {project.services.length === 0 ? (
                <p class="services-empty">No services yet</p>
              ) : (
                <ul class="services">
                  {project.services.map((s) => (
                    <li key={s.id}>
                      <a class="service-name" href={`/services/${s.id}`}>
                        {s.name}
                      </a>
                      <span class="service-kind">{kindOf(s)}</span>
                      <Badge status={s.status} />
                      {s.health.status !== 'none' && <HealthBadge health={s.health} />}
                    </li>
                  ))}
                </ul>
              )}
              {canWrite.value && (
                <div class="row-actions card-actions">
                  <button type="button" onClick={() => void rename(project)}>
                    Rename… <span class="visually-hidden">{project.name}</span>
                  </button>
                  <DangerButton label="Delete…" what={project.name} onClick={() => void remove(project)} />
                  <NewService projectId={project.id} projectName={project.name} />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
