import t from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { versionedApp } from '../helpers/apps.js';
import { deploy, deployEnv, logLines, outcome } from '../helpers/deploy.js';
import { docker, imagesOf, removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { startTestServer } from '../helpers/test-server.js';

/** The build's steps as the engine numbers them, each with the lines it printed. */
function stepsOf(lines: string[]) {
  const steps: { instruction: string; output: string[] }[] = [];
  for (const line of lines) {
    const step = /^Step \d+\/\d+ : (.*)$/.exec(line);
    if (step) steps.push({ instruction: step[1]!, output: [] });
    else if (steps.length > 0 && /^ ---> /.test(line)) steps[steps.length - 1]!.output.push(line);
  }
  return steps;
}

const labelsOf = async (deploymentId: string) => {
  const [image] = await imagesOf({ [LABEL.deployment]: deploymentId });
  return image ? (await docker.getImage(image.Id).inspect()).Config.Labels ?? {} : null;
};

t.test("a redeploy finds the service's labels in the build cache: labelling costs no build step", { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Labels');
  t.teardown(() => removeProjectLeftovers(project.id));
  const svc = await createService(s, project.id, { name: 'web', repoFullName: 'acme/web', branch: 'main', internalPort: 8080 });

  git.push('acme/web', versionedApp('v1'));
  const first = await deploy(s, svc.id);
  t.equal(outcome(first.done), 'succeeded');
  git.push('acme/web', versionedApp('v2'));
  const second = await deploy(s, svc.id);
  t.equal(outcome(second.done), 'succeeded');

  const steps = stepsOf(await logLines(s, second.queued.id));
  const labelling = steps.filter((step) => step.instruction.includes(`${LABEL.service}=`));
  t.equal(labelling.length, 1, 'one step sets the labels');
  t.match(labelling[0]?.output ?? [], [' ---> Using cache'], 'and the builder takes it from its cache');
  t.match(steps.at(-1)?.instruction, /^CMD /, "the build ends with the Dockerfile's own last instruction");

  const labels = await labelsOf(second.queued.id);
  t.match(labels, { [LABEL.managed]: 'true', [LABEL.project]: project.id, [LABEL.service]: svc.id }, 'the image carries the labels');
  t.notOk(labels && LABEL.deployment in labels, 'its deployment is its tag, not a label');
  t.same(
    (await imagesOf({ [LABEL.service]: svc.id })).map((i) => i.Labels[LABEL.deployment]).sort(),
    [first.queued.id, second.queued.id].sort(),
    'both images are found by their deployment (kept with their releases, pruned by them)',
  );
});

t.test('a Dockerfile that sets labels of ours itself gets them overwritten', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Forged labels');
  t.teardown(() => removeProjectLeftovers(project.id));
  const svc = await createService(s, project.id, { name: 'forger', repoFullName: 'acme/forger', branch: 'main', internalPort: 8080 });

  // Unmanaged, another service's, a made-up deployment: an image nothing would ever clean up.
  const forged = `LABEL ${LABEL.managed}="false" ${LABEL.service}="someone-else" ${LABEL.deployment}="forged"`;
  git.push('acme/forger', versionedApp('v1', { buildStep: forged }));
  const first = await deploy(s, svc.id);
  t.equal(outcome(first.done), 'succeeded');
  t.match(
    await labelsOf(first.queued.id),
    { [LABEL.managed]: 'true', [LABEL.service]: svc.id, [LABEL.project]: project.id, [LABEL.deployment]: first.queued.id },
    'the image carries our labels, set last',
  );
  git.push('acme/forger', versionedApp('v2', { buildStep: forged }));
  const second = await deploy(s, svc.id);
  t.equal(outcome(second.done), 'succeeded');
  const left = await imagesOf({ [LABEL.service]: svc.id });
  t.same(left.map((i) => i.Labels[LABEL.deployment]).sort(), [first.queued.id, second.queued.id].sort(), 'both are ours, found by their deployment like any other');
});
