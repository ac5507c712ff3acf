import type { ComponentChildren } from 'preact';
import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso';
import { useEffect, useRef } from 'preact/hooks';
import { useLiveReload } from '../live-reload.js';
import { loadProjects, projects } from '../projects-store.js';
import { CommandPalette } from './command-palette.js';
import { FeedStatus } from './feed-status.js';
import { OwnerNotice } from './owner-notice.js';
import { Sidebar } from './sidebar.js';
import { TopBar } from './top-bar.js';
import { Toaster } from './ui/toast.js';

/** The app shell: sidebar, top bar and the screen; toasts above all. */
export function Layout({ children }: { children: ComponentChildren }) {
  const { path } = useLocation();
  const main = useRef<HTMLElement>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
  const menuOpen = useSignal(false);
  const first = useRef(true);
  // After a navigation the focus would stay on the link just followed: move it to the new screen, as a page load would.
  useEffect(() => {
    menuOpen.value = false;
    void loadProjects();
    if (first.current) return void (first.current = false);
    main.current?.focus();
  }, [path]);
  // The sidebar and breadcrumbs name projects and services: they follow every change to one.
  useLiveReload((change) => change.projectId !== null, loadProjects);
  // Signed out: the next key may see other projects.
  useEffect(() => () => void (projects.value = null), []);
  const closeMenu = () => {
    menuOpen.value = false;
    menuButton.current?.focus();
  };
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <div class="shell">
        <Sidebar open={menuOpen.value} close={closeMenu} />
        <div class={menuOpen.value ? 'backdrop open' : 'backdrop'} onClick={closeMenu} />
        <div class="shell-main">
          <TopBar menuOpen={menuOpen.value} toggleMenu={() => (menuOpen.value ? closeMenu() : (menuOpen.value = true))} menuButton={menuButton} />
          <main id="content" ref={main} tabIndex={-1}>
            <FeedStatus />
            {path === '/' && <OwnerNotice />}
            {children}
          </main>
        </div>
      </div>
      <CommandPalette />
      <Toaster />
    </>
  );
}
