import type { Ref } from 'preact';
import { signOut } from '../session-actions.js';
import { Breadcrumbs } from './breadcrumbs.js';
import { paletteOpen } from './command-palette.js';
import { MenuIcon, SignOutIcon } from './ui/icons.js';
import { Who } from './who.js';

/** The bar above every screen: the menu button (narrow screens), where you are, the key, Sign out. */
export function TopBar({ menuOpen, toggleMenu, menuButton }: { menuOpen: boolean; toggleMenu: () => void; menuButton: Ref<HTMLButtonElement> }) {
  return (
    <header class="top">
      <button ref={menuButton} type="button" class="menu-button btn-ghost" aria-expanded={menuOpen} aria-controls="sidebar" aria-label="Menu" onClick={toggleMenu}>
        <MenuIcon />
      </button>
      <Breadcrumbs />
      <button type="button" class="palette-button btn-ghost" aria-keyshortcuts="Control+K Meta+K" onClick={() => (paletteOpen.value = true)}>
        Search or run… <kbd>Ctrl K</kbd>
      </button>
      <div class="account">
        <Who />
        <button type="button" class="btn-ghost" onClick={() => void signOut()}>
          <SignOutIcon />
          Sign out
        </button>
      </div>
    </header>
  );
}
