import t from 'tap';
import { answeredByApp, waitForRoute, type RouteAnswer } from '../../src/processes/deployment/runs/swarm-route-check.js';

t.test('an answer counts when the app gave it, not the proxies', async (t) => {
  t.ok(answeredByApp({ status: 200, body: 'hi' }));
  t.ok(answeredByApp({ status: 404, body: '' }), 'a 404 is the app answering');
  t.ok(answeredByApp({ status: 500, body: 'Traceback' }), 'so is its own 500');
  t.ok(answeredByApp({ status: 503, body: 'warming up' }), 'and its own 503');
  t.notOk(answeredByApp({ status: 503, body: 'This service has no running deployment yet.\n' }), "the host Caddy's route not switched yet");
  t.notOk(answeredByApp({ status: 502, body: '' }), 'no task reached');
  t.notOk(answeredByApp({ status: 504, body: '' }), 'none in time');
  t.notOk(answeredByApp({ status: 421, body: 'not a Slipway service' }), 'the router refusing');
  t.notOk(answeredByApp({ error: 'no answer within 5 s' }));
});

t.test('waits for the route, noting each new failure once, within its bound', async (t) => {
  const check = { port: 1, path: '/health', timeoutMs: 2_000, attemptMs: 500, retryMs: 10 };
  const answers: RouteAnswer[] = [{ error: 'ECONNREFUSED' }, { error: 'ECONNREFUSED' }, { status: 502, body: '' }, { status: 200, body: 'ok' }];
  const asked: string[] = [];
  const notes: string[] = [];
  const routed = await waitForRoute(check, new AbortController().signal, (l) => notes.push(l), async (port, path) => {
    asked.push(`${port}${path}`);
    return answers.shift()!;
  });
  t.match(routed, { ok: true, answer: { status: 200 } });
  t.equal(asked.length, 4);
  t.same(notes, ['The route does not answer yet: ECONNREFUSED', 'The route does not answer yet: HTTP 502']);

  const never = await waitForRoute({ ...check, timeoutMs: 100 }, new AbortController().signal, () => undefined, async () => ({ status: 502, body: '' }));
  t.same(never, { ok: false, last: { status: 502, body: '' } }, 'gives up with the last answer');
});
