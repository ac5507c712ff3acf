import t from 'tap';
import { Sampler, type Source } from '../../src/runtime/sampler.js';

/** A source the test drives: it publishes what the test pushes and ends when told or when stopped. */
function driven() {
  let publish: (value: number) => void = () => undefined;
  let end: () => void = () => undefined;
  const state = { started: 0, stopped: 0 };
  const source: Source<number> = (p, signal) => {
    state.started++;
    publish = p;
    return new Promise<void>((resolve) => {
      end = resolve;
      signal.addEventListener('abort', () => {
        state.stopped++;
        resolve();
      });
    });
  };
  return { source, state, push: (v: number) => publish(v), end: () => end() };
}

const soon = () => Date.now() + 20;
const never = () => Date.now();

async function until(check: () => boolean) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

t.test('the first read starts the source; later reads take its latest value without starting another', async (t) => {
  const sampler = new Sampler<number>({ quietMs: 60_000, max: 10 });
  t.teardown(() => sampler.stop());
  const a = driven();
  t.equal(await sampler.read('a', a.source, soon()), undefined, 'no value within the wait: not known');
  t.same(sampler.keys(), ['a'], 'but it is sampled from now on');
  a.push(1);
  a.push(2);
  t.equal(await sampler.read('a', a.source, never()), 2, 'the latest value, without waiting');
  t.equal(a.state.started, 1);
  t.equal(sampler.started, 1, 'one source for any number of reads');
});

t.test('a value published within the wait is answered at once', async (t) => {
  const sampler = new Sampler<number>({ quietMs: 60_000, max: 10 });
  t.teardown(() => sampler.stop());
  const value = sampler.read('b', async (publish, signal) => {
    publish(7);
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
  }, Date.now() + 60_000);
  t.equal(await value, 7);
});

t.test('a thing nobody reads for the quiet period is no longer sampled; a read afterwards starts it again', async (t) => {
  const sampler = new Sampler<number>({ quietMs: 50, max: 10 });
  t.teardown(() => sampler.stop());
  const a = driven();
  await sampler.read('a', a.source, never());
  await until(() => sampler.keys().length === 0);
  t.same(sampler.keys(), []);
  t.equal(a.state.stopped, 1, 'its source was stopped');
  await sampler.read('a', a.source, never());
  t.equal(a.state.started, 2);
});

t.test('a source that ends (its container is gone) or fails is dropped', async (t) => {
  const sampler = new Sampler<number>({ quietMs: 60_000, max: 10 });
  t.teardown(() => sampler.stop());
  const a = driven();
  await sampler.read('a', a.source, never());
  a.push(3);
  a.end();
  await until(() => sampler.keys().length === 0);
  t.same(sampler.keys(), [], 'gone');
  t.equal(await sampler.read('b', () => Promise.reject(new Error('no such container')), Date.now() + 60_000), undefined, 'a failure is "not known"');
  await until(() => sampler.keys().length === 0);
  t.same(sampler.keys(), []);
});

t.test('no more than `max` things are sampled: one more ends the one read least recently', async (t) => {
  const sampler = new Sampler<number>({ quietMs: 60_000, max: 2 });
  t.teardown(() => sampler.stop());
  const sources = [driven(), driven(), driven()];
  await sampler.read('c0', sources[0]!.source, never());
  await new Promise((r) => setTimeout(r, 5));
  await sampler.read('c1', sources[1]!.source, never());
  await new Promise((r) => setTimeout(r, 5));
  // c0 is read again: c1 is now the one read least recently.
  await sampler.read('c0', sources[0]!.source, never());
  await sampler.read('c2', sources[2]!.source, never());
  t.same(sampler.keys().sort(), ['c0', 'c2'], 'the third is sampled; the one read least recently is not');
  t.equal(sources[1]!.state.stopped, 1, "its source was stopped");
  t.equal(sources[2]!.state.started, 1);
});

t.test('stop ends every source and starts none afterwards', async (t) => {
  const sampler = new Sampler<number>({ quietMs: 60_000, max: 10 });
  const a = driven();
  const b = driven();
  await sampler.read('a', a.source, never());
  await sampler.read('b', b.source, never());
  await sampler.stop();
  t.equal(a.state.stopped + b.state.stopped, 2);
  t.same(sampler.keys(), []);
  t.equal(await sampler.read('a', a.source, never()), undefined);
  t.equal(a.state.started, 1, 'nothing started after the stop');
});
