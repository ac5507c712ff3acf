import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { ErrorNote } from '../components/error-note.js';
import { canWrite } from '../session.js';
import { DangerButton } from '../components/danger-button.js';
import { HealthBadge } from '../components/service-health.js';
import { NewService } from '../components/new-service.js';

type Project = GetAnswer<'/api/projects'>['projects'][number];

export function ProjectsScreen() {
  const projects = useSignal<Project[] | null>(null);
  const error = useSignal<string | null>(null);
  const newName = useSignal('');
  const load = async () => {
    const { data, error: failed } = await api.GET('/api/projects');
    if (failed) error.value = messageOf(failed);
    else projects.value = data.projects;
  };
  useEffect(() => {
    void load();
  }, []);

  const create = async (event: Event) => {
    event.preventDefault();
    const { error: failed } = await api.POST('/api/projects', { body: { name: newName.value } });
    if (failed) return void (error.value = messageOf(failed));
    newName.value = '';
    error.value = null;
    await load();
  };

  const rename = async (project: Project) => {
    const name = window.prompt(`New name for ${project.name}`, project.name)?.trim();
    if (!name || name === project.name) return;
    const { error: failed } = await api.PATCH('/api/projects/{projectId}', { params: { path: { projectId: project.id } }, body: { name } });
    if (failed) return void (error.value = messageOf(failed));
    await load();
  };

  const remove = async (project: Project) => {
    const databases = project.services.filter((s) => s.repoUrl === 'database').length;
    const what = `project ${project.name} with its ${project.services.length} service(s)${databases ? ` (${databases} database(s) and their data)` : ''}`;
    if (!window.confirm(`Delete ${what}? This cannot be undone.`)) return;
    const { error: failed } = await api.DELETE('/api/projects/{projectId}', { params: { path: { projectId: project.id } } });
    if (failed) return void (error.value = messageOf(failed));
    await load();
  };

  return (
    <section>
      <h1>Projects</h1>
      <ErrorNote message={error.value} />
      {canWrite.value && (
        <form class="inline" onSubmit={create}>
          <label for="new-project">New project</label>
          <input id="new-project" required maxLength={100} value={newName.value} onInput={(e) => (newName.value = e.currentTarget.value)} />
          <button type="submit">Create</button>
        </form>
      )}
      {projects.value === null ? (
        <p role="status">Loading…</p>
      ) : projects.value.length === 0 ? (
        <p>No projects yet.</p>
      ) : (
        <ul class="cards">
          {projects.value.map((project) => (
            <li key={project.id} class="card">
              <h2>{project.name}</h2>
              <ul class="services">
                {project.services.map((s) => (
                  <li key={s.id}>
                    <a href={`/services/${s.id}`}>{s.name}</a> <span class={`status status-${s.status}`}>{s.status}</span> <HealthBadge health={s.health} />
                  </li>
                ))}
              </ul>
              {canWrite.value && (
                <>
                  <button type="button" onClick={() => void rename(project)}>
                    Rename… <span class="visually-hidden">{project.name}</span>
                  </button>
                  <DangerButton label="Delete…" what={project.name} onClick={() => void remove(project)} />
                  <NewService projectId={project.id} projectName={project.name} />
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
