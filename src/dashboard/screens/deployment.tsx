import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, messageOf } from '../api.js';
import { ErrorNote } from '../components/error-note.js';

/**
 * `/deployments/<id>`, the address notifications and the CLI give: the page of the deployment's service,
 * following that deployment's log.
 */
export function DeploymentScreen() {
  const { params } = useRoute();
  const { route } = useLocation();
  const error = useSignal<string | null>(null);
  const deploymentId = params.deploymentId!;
  useEffect(() => {
    void api.GET('/api/deployments/{deploymentId}', { params: { path: { deploymentId } } }).then(({ data, error: failed }) => {
      if (failed) return void (error.value = messageOf(failed));
      route(`/services/${data.deployment.serviceId}?deployment=${encodeURIComponent(deploymentId)}`, true);
    });
  }, [deploymentId]);
  return error.value ? <ErrorNote message={error.value} /> : <p role="status">Opening the deployment…</p>;
}
