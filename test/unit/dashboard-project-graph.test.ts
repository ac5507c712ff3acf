import t from 'tap';
import { columnGap, edgePath, graphColumns, MAX_COLUMNS, spread } from '../../src/dashboard/project-graph.js';

const link = (from: string, to: string) => ({ from, to });

t.test('columns by depth: what nothing uses on the left, what it uses to the right', async (t) => {
  t.same(graphColumns(['db', 'web', 'worker'], [link('web', 'db'), link('worker', 'db')]), [['web', 'worker'], ['db']]);
  t.same(graphColumns(['db', 'api', 'web'], [link('web', 'api'), link('api', 'db'), link('web', 'db')]), [['web'], ['api'], ['db']], 'the deepest use decides');
  t.same(graphColumns(['a', 'b'], []), [['a', 'b']], 'services with no references share the first column');
  t.same(graphColumns([], []), []);
});

t.test('a cycle does not hang and keeps its services apart; a long chain stops at the last column', async (t) => {
  t.same(graphColumns(['a', 'b'], [link('a', 'b'), link('b', 'a')]), [['a'], ['b']]);
  t.same(graphColumns(['a', 'b', 'c'], [link('a', 'b'), link('b', 'c'), link('c', 'a')]), [['a'], ['b'], ['c']]);
  t.same(graphColumns(['a'], [link('a', 'a')]), [['a']], 'a service using itself');
  const chain = ['s0', 's1', 's2', 's3', 's4', 's5'];
  const columns = graphColumns(chain, chain.slice(1).map((id, i) => link(chain[i]!, id)));
  t.equal(columns.length, MAX_COLUMNS);
  t.same(columns.at(-1), ['s2', 's3', 's4', 's5']);
  t.same(graphColumns(['a', 'b'], [link('a', 'gone')]), [['a', 'b']], 'a link to no listed service is ignored');
});

t.test('within a column a service sits near those that use it', async (t) => {
  t.same(graphColumns(['x', 'y', 'dx', 'dy'], [link('y', 'dy'), link('x', 'dx')]), [['x', 'y'], ['dx', 'dy']]);
  t.same(graphColumns(['y', 'x', 'dx', 'dy'], [link('y', 'dy'), link('x', 'dx')]), [['y', 'x'], ['dy', 'dx']]);
});

t.test('edges leave and arrive by the facing sides; the label in the gap before the card it arrives at', async (t) => {
  const left = { x: 0, y: 0, width: 100, height: 40 };
  const right = { x: 200, y: 100, width: 100, height: 40 };
  t.same(edgePath(left, right).d, 'M100 20 C156 20 144 120 200 120');
  const far = { x: 500, y: 100, width: 100, height: 40 };
  const label = edgePath(left, far, 0.5, 0.5, 100).label;
  t.ok(Math.abs(label.x - 450) < 8 && label.y > 20 && label.y < 120, `a label sits mid-gap before the card it arrives at (${JSON.stringify(label)})`);
  const near = edgePath(left, right).label;
  t.ok(Math.abs(near.x - 150) < 5 && Math.abs(near.y - 70) < 8, `between neighbouring columns, about mid-curve (${JSON.stringify(near)})`);
  t.same(edgePath(right, left).d, 'M200 120 C144 120 156 20 100 20', 'leftwards: from the left side to the right side');
  const below = { x: 0, y: 80, width: 100, height: 40 };
  t.same(edgePath(left, below).d, 'M100 20 C156 20 156 100 100 100', 'same column: out and back on the right');
  t.same([spread(0, 1), spread(0, 3), spread(1, 3), spread(2, 3)], [0.5, 0.25, 0.5, 0.75]);
  t.equal(columnGap([left, right, far, below]), 100, 'the narrowest space between a card and one further right');
  t.equal(columnGap([left, below]), undefined, 'one column has none');
});
