import { useLayoutEffect } from 'preact/hooks';
import { shownProjectId } from './session.js';

/**
 * Tells the page's controls which project it shows while it is open (a viewer there changes nothing). A layout
 * effect: it runs before the browser paints, so a viewer never sees a control flash by.
 */
export function useShownProject(projectId: string | null | undefined): void {
  useLayoutEffect(() => {
    shownProjectId.value = projectId ?? null;
    return () => {
      shownProjectId.value = null;
    };
  }, [projectId]);
}
