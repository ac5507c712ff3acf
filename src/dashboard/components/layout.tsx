import type { ComponentChildren } from 'preact';
import { session } from '../session.js';
import { signOut } from '../session-actions.js';

export function Layout({ children }: { children: ComponentChildren }) {
  const current = session.value!;
  return (
    <>
      <header class="top">
        <a class="brand" href="/">
          Slipway
        </a>
        <nav aria-label="Main">
          <a href="/">Projects</a>
          <a href="/history">History</a>
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
      <main>{children}</main>
    </>
  );
}
