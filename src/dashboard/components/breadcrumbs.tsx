import { useLocation } from 'preact-iso';
import { projects } from '../projects-store.js';
import { trailOf } from '../trail.js';

/** The top bar's trail to the current screen; the last step is the screen itself. */
export function Breadcrumbs() {
  const { path } = useLocation();
  const crumbs = trailOf(path, projects.value ?? []);
  return (
    <nav class="breadcrumbs" aria-label="Breadcrumb">
      <ol>
        {crumbs.map((c, i) => (
          <li key={i}>
            {i === crumbs.length - 1 ? (
              <span aria-current="page">{c.label}</span>
            ) : c.href ? (
              <a href={c.href}>{c.label}</a>
            ) : (
              <span>{c.label}</span>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}
