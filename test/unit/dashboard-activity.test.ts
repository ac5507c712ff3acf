import t from 'tap';
import { projectActivity } from '../../src/dashboard/activity.js';

let n = 0;
const event = (type: string, streamId: string, data: Record<string, unknown>, correlationId: string, actor = 'key:k1', actorName: string | null = 'ci') => ({
  position: String(++n).padStart(4, '0'),
  id: `e${n}`,
  streamId,
  revision: 0,
  type,
  schemaVersion: 1,
  recordedAt: `2026-11-27T10:00:${String(n).padStart(2, '0')}.000Z`,
  actor,
  actorName,
  correlationId,
  causationId: null,
  data,
});

t.test("a project's activity: a line per request in the audit log's words, today's names, its outcome", async (t) => {
  const oldestFirst = [
    event('ProjectCreated', 'project-p', { name: 'Shop' }, 'r1', 'cli', null),
    event('ServiceCreated', 'service-s1', { name: 'website', projectId: 'p' }, 'r2'),
    event('ProjectServiceAttached', 'project-p', { serviceId: 's1' }, 'r2'),
    event('EnvVarSet', 'service-s1', { key: 'DATABASE_URL', value: '[encrypted]' }, 'r3'),
    event('DeploymentQueued', 'deployment-d1', { serviceId: 's1', projectId: 'p', kind: 'deploy', trigger: 'manual' }, 'r4'),
    event('DeploymentStarted', 'deployment-d1', {}, 'r4', 'system:deployer', null),
    event('DeploymentFailed', 'deployment-d1', { reason: 'exit 1' }, 'r4', 'system:deployer', null),
  ];
  const activity = projectActivity(oldestFirst.reverse(), { id: 'p', name: 'Shop', services: [{ id: 's1', name: 'web' }] });
  t.same(
    activity.map((a) => [a.text, a.tone, a.outcome?.text ?? null]),
    [
      ['ci deployed web', 'danger', 'Deployment failed'],
      ['ci set DATABASE_URL on web', 'neutral', null],
      ['ci created the service website in Shop', 'neutral', null],
      ['The CLI created the project Shop', 'neutral', null],
    ],
    'the deployment and its steps are one line; a service created as website is called web now in the other lines',
  );
  t.equal(activity[0]!.at, '2026-11-27T10:00:07.000Z', "a request's line is as recent as its latest event");
  t.notOk(JSON.stringify(activity).includes('[encrypted]'), 'no value is shown');
});
