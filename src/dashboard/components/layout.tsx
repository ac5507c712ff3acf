import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { useEffect, useRef } from 'preact/hooks';
import { session } from '../session.js';
import { signOut } from '../session-actions.js';

export function Layout({ children }: { children: ComponentChildren }) {
  const current = session.value!;
  const { path } = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // After a navigation the focus would stay on the link just followed: move it to the new screen, as a page load would.
  useEffect(() => {
    if (first.current) return void (first.current = false);
    main.current?.focus();
  }, [path]);
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          Slipway
        </a>
        <nav aria-label="Main">
          <a href="/">Projects</a>
          <a href="/audit">Audit log</a>
          <a href="/installation">Installation</a>
        </nav>
        <span class="who">
          {current.access === 'write' ? 'write key' : 'read key'}
          {current.projectIds ? `, ${current.projectIds.length} project(s)` : ', all projects'}
        </span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main id="content" ref={main} tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
