import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { projects, type Project } from '../projects-store.js';
import { toneOf } from './ui/badge.js';
import { AuditIcon, CloseIcon, LogoIcon, ProjectsIcon, ServerIcon } from './ui/icons.js';
import { Who } from './who.js';

function NavLink({ href, current, children }: { href: string; current: boolean; children: ComponentChildren }) {
  return (
    <a class="nav-link" href={href} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

function ProjectGroup({ project, path }: { project: Project; path: string }) {
  const labelId = `nav-project-${project.id}`;
  return (
    <li>
      <a class="nav-project" id={labelId} href={`/projects/${project.id}`} aria-current={path === `/projects/${project.id}` ? 'page' : undefined}>
        <span class="nav-project-initial" aria-hidden="true">
          {project.name.slice(0, 1).toUpperCase()}
        </span>
        <span class="label">{project.name}</span>
      </a>
      {project.services.length === 0 ? (
        <p class="nav-empty">No services yet</p>
      ) : (
        <ul class="nav-services" aria-labelledby={labelId}>
          {project.services.map((s) => (
            <li key={s.id}>
              <NavLink href={`/services/${s.id}`} current={path === `/services/${s.id}`}>
                <span class={`dot tone-${toneOf(s.status)}`} aria-hidden="true" />
                <span class="label">{s.name}</span>
                <span class="visually-hidden">, {s.status}</span>
              </NavLink>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/**
 * The projects and their services, then the audit log and the installation; the current screen is marked. On a
 * narrow screen it slides in from the menu button (`open`): its first link takes the focus, Escape closes it.
 */
export function Sidebar({ open, close }: { open: boolean; close: () => void }) {
  const { path } = useLocation();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open) box.current?.querySelector<HTMLElement>('.nav-link')?.focus();
  }, [open]);
  return (
    <div id="sidebar" ref={box} class={open ? 'sidebar open' : 'sidebar'} onKeyDown={(e) => e.key === 'Escape' && open && close()}>
      <div class="sidebar-inner">
        <div class="sidebar-top">
          <a class="brand" href="/">
            <span class="brand-mark">
              <LogoIcon />
            </span>
            Slipway
          </a>
          <button type="button" class="sidebar-close btn-ghost" aria-label="Close menu" onClick={close}>
            <CloseIcon />
          </button>
        </div>
        <nav aria-label="Main">
          <ul class="nav-list">
            <li>
              <NavLink href="/" current={path === '/'}>
                <ProjectsIcon />
                <span class="label">Projects</span>
              </NavLink>
            </li>
          </ul>
          {projects.value && projects.value.length > 0 && (
            <>
              <p class="nav-heading">Your projects</p>
              <ul class="nav-list">
                {projects.value.map((p) => (
                  <ProjectGroup key={p.id} project={p} path={path} />
                ))}
              </ul>
            </>
          )}
          <ul class="nav-list sidebar-footer">
            <li>
              <NavLink href="/audit" current={path === '/audit' || path === '/history'}>
                <AuditIcon />
                <span class="label">Audit log</span>
              </NavLink>
            </li>
            <li>
              <NavLink href="/installation" current={path === '/installation'}>
                <ServerIcon />
                <span class="label">Installation</span>
              </NavLink>
            </li>
          </ul>
        </nav>
        <Who />
      </div>
    </div>
  );
}
