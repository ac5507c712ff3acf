import t from 'tap';
import { outsideAnswerText, outsideMessage, registryFailureText, shortLine, withoutRegistryAnswer } from '../../src/outbound/outside-answers.js';

const PAGE = '<!DOCTYPE html>\n<html><head><title>admin</title></head><body>internal-secret</body></html>';

t.test('a non-JSON answer (an HTML page, plain text) gives only the status, with its standard phrase', async (t) => {
  t.equal(outsideAnswerText(502, PAGE), 'HTTP 502 Bad Gateway');
  t.equal(outsideAnswerText(404, 'internal-secret words'), 'HTTP 404 Not Found');
  t.equal(outsideAnswerText(599, ''), 'HTTP 599');
  t.equal(outsideMessage(PAGE), null);
});

t.test("a JSON error's words: error, error.message, message, errors[].message, detail; one line of at most 200 characters", async (t) => {
  t.equal(outsideAnswerText(401, JSON.stringify({ error: 'bad key' })), 'HTTP 401: bad key');
  t.equal(outsideAnswerText(401, JSON.stringify({ error: { message: 'bad key', type: 'auth' } })), 'HTTP 401: bad key');
  t.equal(outsideAnswerText(400, JSON.stringify({ message: 'no' })), 'HTTP 400: no');
  t.equal(outsideAnswerText(400, JSON.stringify({ errors: [{ message: 'a' }, { message: 'b' }] })), 'HTTP 400: a; b');
  t.equal(outsideAnswerText(422, JSON.stringify({ detail: 'd' })), 'HTTP 422: d');
  t.equal(outsideAnswerText(500, JSON.stringify({ data: 'internal-secret' })), 'HTTP 500 Internal Server Error', 'no error field: nothing of it');
  const long = outsideAnswerText(500, JSON.stringify({ error: `first\r\nsecond\t${'y'.repeat(400)}` }))!;
  t.ok(long.length <= 'HTTP 500: '.length + 200, `${long.length} characters`);
  t.notMatch(long, /[\r\n\t]/);
  t.match(long, /^HTTP 500: first second y+…$/);
  t.equal(outsideAnswerText(500, JSON.stringify({ error: PAGE })), 'HTTP 500 Internal Server Error', 'a page quoted in a JSON field is still a page');
  t.equal(outsideAnswerText(400, JSON.stringify({ message: 'x' }), () => 'picked by the caller'), 'HTTP 400: picked by the caller');
});

t.test('short lines', async (t) => {
  t.equal(shortLine('  a \n b  '), 'a b');
  t.equal(shortLine('\u0000\u001b[31m'), '[31m');
  t.equal(shortLine('a < b'), 'a < b', 'a comparison is not markup');
  t.equal(shortLine('<b>x</b>'), null);
  t.equal(shortLine(''), null);
});

t.test("the Docker engine's pull errors: the registry's answer it quotes is left out", async (t) => {
  const quoted = `error parsing HTTP 404 response body: invalid character '<' looking for beginning of value: "${PAGE.replaceAll('\n', '\\n')}"`;
  t.equal(registryFailureText(quoted), "the registry answered HTTP 404 with something that is not a registry's answer (not shown)");
  t.equal(withoutRegistryAnswer(`failed to register layer: ${quoted}`), "failed to register layer: the registry answered HTTP 404 with something that is not a registry's answer (not shown)");
  t.equal(registryFailureText('manifest for 127.0.0.1:5000/x:1 not found: manifest unknown: manifest unknown'), 'manifest for 127.0.0.1:5000/x:1 not found: manifest unknown: manifest unknown');
  t.equal(registryFailureText(`unknown: ${'z'.repeat(500)}\nsecond line`).length, 200);
  t.equal(registryFailureText('Get "https://r.example/v2/": <html>internal-secret</html>'), 'Get');
});
