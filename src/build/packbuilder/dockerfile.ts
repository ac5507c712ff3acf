import { STATIC_OUTPUTS, type PackImages, type PackPlan } from './detect.js';

/** Exec form through a shell with `exec`, so the app is PID 1 and gets SIGTERM on a redeploy. */
const shellCmd = (command: string) => `CMD ${JSON.stringify(['/bin/sh', '-c', `exec ${command}`])}`;
const run = (command: string | null) => (command ? [`RUN ${command}`] : []);

/** An interpreted app: its runtime image, the sources, install and build in place, then start. */
const appImage = (from: string, setup: string[], plan: PackPlan, runtime: string[]) =>
  [`FROM ${from}`, 'WORKDIR /app', ...setup, 'COPY . .', ...run(plan.install), ...run(plan.build), ...runtime, shellCmd(plan.start!)].join('\n');

/** The Dockerfile the packbuilder writes for a plan. Pure. */
export function packDockerfile(plan: PackPlan, images: PackImages, internalPort: number): string {
  const port = [`ENV PORT=${internalPort}`, `EXPOSE ${internalPort}`];
  switch (plan.language) {
    case 'node':
      // Production mode only after the build: builds need their devDependencies, as on Heroku.
      return appImage(images.node, [], plan, ['ENV NODE_ENV=production', ...port]);
    case 'python':
      return appImage(images.python, ['RUN python3 -m venv /venv', 'ENV PATH=/venv/bin:$PATH PYTHONUNBUFFERED=1'], plan, port);
    case 'go':
      return [
        `FROM ${images.go} AS build`,
        'WORKDIR /src',
        'COPY . .',
        ...run(plan.install),
        ...run(plan.build),
        `FROM ${images.run}`,
        'COPY --from=build /slipway /slipway',
        'WORKDIR /slipway',
        ...port,
        shellCmd(plan.start!),
      ].join('\n');
    case 'static': {
      const served = '/srv/site';
      const buildStage = plan.build
        ? [
            `FROM ${images.node} AS build`,
            'WORKDIR /app',
            'COPY . .',
            ...run(plan.install),
            ...run(plan.build),
            `RUN for d in ${STATIC_OUTPUTS.join(' ')}; do if [ -d "$d" ]; then cp -r "$d" /site; break; fi; done; ` +
              `test -d /site || { echo "the build wrote none of: ${STATIC_OUTPUTS.join(', ')}" >&2; exit 1; }`,
          ]
        : [];
      return [
        ...buildStage,
        `FROM ${images.static}`,
        plan.build ? `COPY --from=build /site ${served}` : `COPY ${plan.siteDir ?? '.'} ${served}`,
        ...port,
        shellCmd(`busybox httpd -f -v -p $PORT -h ${served}`),
      ].join('\n');
    }
  }
}
