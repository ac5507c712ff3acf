import t from 'tap';
import { commandOf, exitStatusOf } from '../../src/cli/api/runs.js';

t.test('slipway run: one word runs through sh -c, several as argv', async (t) => {
  t.equal(commandOf(['npm run migrate && npm run seed']), 'npm run migrate && npm run seed');
  t.same(commandOf(['npm', 'run', 'migrate']), ['npm', 'run', 'migrate']);
});

t.test('slipway run exits with the command’s exit code, or says how it ended otherwise', async (t) => {
  t.equal(exitStatusOf({ status: 'succeeded', exitCode: 0 }), 0);
  t.equal(exitStatusOf({ status: 'failed', exitCode: 3 }), 3);
  t.equal(exitStatusOf({ status: 'failed', exitCode: 300 }), 255, 'within what a process can exit with');
  t.equal(exitStatusOf({ status: 'failed', exitCode: null }), 1, 'it could not start');
  t.equal(exitStatusOf({ status: 'timed_out', exitCode: null }), 124);
  t.equal(exitStatusOf({ status: 'canceled', exitCode: null }), 130);
});
