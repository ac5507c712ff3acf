import { message } from '../../error-message.js';

/** A failure whose message is the whole story for the user; anything else is prefixed with its step. */
export class DeployFailure extends Error {}

function abortedPromise(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * A signal that aborts with `parent` or after `ms`. Not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`:
 * in Node 20 the garbage collector can take the timeout signal inside `any` before it fires
 * (nodejs/node#57736), and a step would then never end. Here the timer holds the controller.
 */
function deadline(parent: AbortSignal, ms: number) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('step deadline', 'TimeoutError')), ms);
  const fromParent = () => controller.abort(parent.reason);
  if (parent.aborted) fromParent();
  else parent.addEventListener('abort', fromParent, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      parent.removeEventListener('abort', fromParent);
    },
  };
}

/** One step with its own deadline inside the deployment's abort signal. */
export async function step<T>(name: string, ms: number, parent: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { signal, clear } = deadline(parent, ms);
  const work = fn(signal);
  try {
    // The deadline holds even when a call does not honour its signal (an engine that never answers).
    return await Promise.race([work, abortedPromise(signal)]);
  } catch (error) {
    work.catch(() => undefined);
    if (parent.aborted) throw error;
    if (signal.aborted) throw new DeployFailure(`${name} did not finish within ${Math.round(ms / 1000)} s`);
    if (error instanceof DeployFailure) throw error;
    throw new DeployFailure(`${name} failed: ${message(error)}`);
  } finally {
    clear();
  }
}
