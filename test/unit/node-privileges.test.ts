import t from 'tap';
import { noNewPrivsOf, unprotectedNodes, type NodeProtection } from '../../src/cluster/node-privileges.js';

t.test('the NoNewPrivs line of a process status', async (t) => {
  t.equal(noNewPrivsOf('Name:\tsocat\nSeccomp:\t2\nNoNewPrivs:\t1\nSpeculation_Store_Bypass:\tthread vulnerable\n'), true);
  t.equal(noNewPrivsOf('Name:\tsocat\nNoNewPrivs:\t0\n'), false);
  t.equal(noNewPrivsOf('Name:\tsocat\n'), null, 'a kernel without the line: unknown');
  t.equal(noNewPrivsOf('Name:\tNoNewPrivs:\t1x\n'), null, 'only a line of its own counts');
});

t.test('nodes warned about: app tasks there, and neither the spec nor the daemon sets no-new-privileges', async (t) => {
  const node = (id: string, over: Partial<NodeProtection> = {}): NodeProtection => ({ id, hostname: id, engineVersion: '20.10.24+dfsg1', daemon: false, appTasks: 1, ...over });
  const ids = (nodes: NodeProtection[], api: string) => unprotectedNodes(nodes, api).map((n) => n.id);
  t.same(ids([node('a')], '1.41'), ['a'], 'an old engine whose daemon does not set it');
  t.same(ids([node('a', { daemon: true })], '1.41'), [], 'its daemon sets it');
  t.same(ids([node('a', { daemon: null })], '1.41'), [], 'not known yet: not named');
  t.same(ids([node('a', { appTasks: 0 })], '1.41'), [], 'no app task there');
  t.same(ids([node('a', { engineVersion: '27.3.1' })], '1.47'), [], 'the manager puts it in the spec and the node applies it');
  t.same(ids([node('a', { engineVersion: '27.3.1' })], '1.41'), ['a'], 'a new node under an old manager: the spec has none');
  t.same(ids([node('a', { engineVersion: '20.10.24' })], '1.47'), ['a'], 'an old node under a new manager ignores it');
});
