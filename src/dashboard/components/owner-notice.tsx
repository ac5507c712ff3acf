import '../styles/people.css';
import { ownerFormOpen, ownerNeeded } from '../owner-needed.js';

/**
 * Said on the first screen while nobody owns the installation, to the key that may make its first owner. A notice,
 * not a screen in the way: the installation also works with keys alone (the CLI, scripts).
 */
export function OwnerNotice() {
  if (!ownerNeeded.value) return null;
  return (
    <div class="owner-notice">
      <p>
        <strong>Nobody owns this installation yet.</strong> Make the first owner: they sign in with an e-mail and password and invite everyone else.
      </p>
      <button type="button" class="btn-primary" onClick={() => (ownerFormOpen.value = true)}>
        Make the first owner
      </button>
    </div>
  );
}
