import t from 'tap';
import { referenceEdges, type ServiceVariables } from '../../src/variables/reference-edges.js';

const service = (id: string, name: string, slug: string, variables: Record<string, string>): ServiceVariables => ({
  id,
  name,
  slug,
  variables: Object.entries(variables).map(([key, value]) => ({ key, value })),
});

t.test('each reference to another service is an edge: by name or slug, several in one value, each once', async (t) => {
  const services = [
    service('w', 'Web App', 'web-app', {
      DATABASE_URL: '${db.DATABASE_URL}',
      CACHE: 'redis://${ cache .REDIS_HOST}:${cache.REDIS_PORT}/0?again=${cache.REDIS_HOST}',
      PLAIN: 'no reference here',
    }),
    service('d', 'db', 'db', { POSTGRES_USER: 'postgres' }),
    service('c', 'Cache Layer', 'cache', { REDIS_HOST: 'cache' }),
    service('j', 'jobs', 'jobs', { API: 'http://${Web App.HOST}', SELF: '${jobs.PORT}', GONE: '${nope.X}', LOWER: '${db.lower}' }),
  ];
  t.same(referenceEdges(services), [
    { fromServiceId: 'w', key: 'DATABASE_URL', toServiceId: 'd', toKey: 'DATABASE_URL' },
    { fromServiceId: 'w', key: 'CACHE', toServiceId: 'c', toKey: 'REDIS_HOST' },
    { fromServiceId: 'w', key: 'CACHE', toServiceId: 'c', toKey: 'REDIS_PORT' },
    { fromServiceId: 'j', key: 'API', toServiceId: 'w', toKey: 'HOST' },
  ]);
});

t.test('a cycle is two edges, and no service is no edge', async (t) => {
  const cycle = [service('a', 'a', 'a', { B: '${b.X}' }), service('b', 'b', 'b', { A: '${a.Y}' })];
  t.same(referenceEdges(cycle), [
    { fromServiceId: 'a', key: 'B', toServiceId: 'b', toKey: 'X' },
    { fromServiceId: 'b', key: 'A', toServiceId: 'a', toKey: 'Y' },
  ]);
  t.same(referenceEdges([]), []);
});
