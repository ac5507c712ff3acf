import { createRequire } from 'node:module';
import Module from 'node:module';

/**
 * dockerode loads, at its own load, an SSH client (for `ssh://` engines) and gRPC with its protobuf loader
 * (for BuildKit sessions): ≈ 20 MB resident that Slipway, on a local socket with the classic builder, never
 * uses. While dockerode loads, these three are handed out as stand-ins that load the real module at first
 * use, so nothing changes for a caller that does use them.
 */
const DEFERRED = new Set(['ssh2', '@grpc/grpc-js', '@grpc/proto-loader']);

type Load = (request: string, parent: unknown, isMain: boolean) => unknown;

function deferred(request: string, parent: { filename?: string } | undefined): object {
  let real: Record<string | symbol, unknown> | null = null;
  const load = () => (real ??= createRequire(parent?.filename ?? import.meta.url)(request) as Record<string | symbol, unknown>);
  if (request === 'ssh2') {
    // docker-modem reads `.Client` at load time: a constructor that builds the real one when called.
    return { Client: function Client(...args: unknown[]) { return new (load().Client as new (...a: unknown[]) => object)(...args); } };
  }
  return new Proxy({}, { get: (_, key) => load()[key], has: (_, key) => key in load() });
}

/** Runs `loadModule` with the deferred stand-ins in place. */
export async function withDeferredRequires<T>(loadModule: () => Promise<T>): Promise<T> {
  const internals = Module as unknown as { _load: Load };
  const original = internals._load;
  internals._load = function (request, parent, isMain) {
    return DEFERRED.has(request) ? deferred(request, parent as { filename?: string }) : original.call(this, request, parent, isMain);
  };
  try {
    return await loadModule();
  } finally {
    internals._load = original;
  }
}
