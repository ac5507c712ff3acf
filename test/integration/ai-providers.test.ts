import t, { type Test } from 'tap';
import { baseService } from '../helpers/failure-context.js';
import { AiProviderError, failureExplanationSchema, type FailureContext } from '../../src/integrations/ai/explanation.js';
import { aiConnectBody, AI_PROVIDERS, openExplainer, verifyAiProvider } from '../../src/integrations/ai/providers.js';
import { ForbiddenDestinationError } from '../../src/outbound/forbidden-destination.js';
import { createDestinationPolicy } from '../../src/outbound/destination-policy.js';
import { freePort } from '../helpers/net.js';
import { policyAllowing } from '../helpers/outbound.js';
import { anthropicMessage, openAiCompletion, startFakeAnthropic, startFakeOpenAi, type ReceivedRequest } from '../helpers/fake-ai-servers.js';

const API_KEY = 'sk-test-0123456789abcdef';
/** The value of DATABASE_PASSWORD: never in the context, so never in a request. */
const PLANTED_SECRET = 'planted-Secret-Value-4f9c2e';

const context: FailureContext = {
  deployment: {
    id: 'dep-42',
    failureReason: "docker build failed: The command '/bin/sh -c npm ci --no-audit --no-fund' returned a non-zero code: 1",
    detectedBuildMethod: null,
  },
  service: { ...baseService, repoUrl: 'https://github.com/acme/shop.git' },
  variableNames: ['DATABASE_PASSWORD', 'DATABASE_URL', 'NODE_ENV'],
  logLines: [
    'Step 4/9 : RUN npm ci --no-audit --no-fund',
    ' ---> Running in 7d1e0c2b9a41',
    'npm error code EUSAGE',
    'npm error `npm ci` can only install packages when your package.json and package-lock.json or npm-shrinkwrap.json are in sync. Please update your lock file with `npm install` before continuing.',
    'npm error Missing: left-pad@1.3.0 from lock file',
  ],
};

const answer = {
  summary: 'npm ci refused to install: the lockfile is out of date.',
  likelyCause: 'left-pad was added to package.json without updating package-lock.json.',
  suggestedFix: 'Run npm install, commit package-lock.json, deploy again.',
  commands: ['npm install', 'git add package-lock.json'],
};
const answerJson = JSON.stringify(answer);

const openai = await startFakeOpenAi();
const anthropic = await startFakeAnthropic();
t.teardown(() => Promise.all([openai.close(), anthropic.close()]));
/** The fake providers listen on loopback: allowed, exactly they. */
const outbound = policyAllowing(openai.origin, anthropic.origin);
t.beforeEach(() => {
  openai.reset();
  anthropic.reset();
});

async function failure(t: Test, work: Promise<unknown>): Promise<AiProviderError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  t.type(error, AiProviderError);
  return error as AiProviderError;
}

/** The user message as sent: what the provider sees of the deployment. */
function assertUserMessage(t: Test, request: ReceivedRequest, user: string) {
  for (const line of context.logLines) t.ok(user.includes(line), `the log line is sent: ${line.slice(0, 40)}`);
  for (const name of context.variableNames) t.ok(user.includes(name), `the variable name ${name} is sent`);
  t.match(user, /Failure reason recorded by Slipway: docker build failed: The command/);
  t.match(user, /internal port: 8080/);
  t.notOk(request.raw.includes(PLANTED_SECRET), 'the secret value is in no request');
  t.notOk(request.raw.includes(API_KEY), 'the API key is not in the body');
}

t.test('OpenAI-compatible: the exact request, and the parsed answer', async (t) => {
  openai.queue(openAiCompletion(answerJson));
  const explainer = openExplainer('openai', { baseUrl: `${openai.origin}/v1/`, apiKey: API_KEY, defaultModel: null }, { timeoutMs: 5000, outbound });
  const explanation = await explainer.explain(context, 'gpt-test');
  t.same(explanation, answer, 'the answer is the model\'s JSON');
  t.equal(openai.requests.length, 1, 'one request');
  const [request] = openai.requests;
  t.equal(request!.method, 'POST');
  t.equal(request!.path, '/v1/chat/completions', 'the trailing slash of baseUrl is not doubled');
  t.equal(request!.headers.authorization, `Bearer ${API_KEY}`);
  t.match(request!.headers['content-type'], /^application\/json/);
  const body = request!.json as { model: string; temperature: number; response_format: unknown; messages: { role: string; content: string }[] };
  t.equal(body.model, 'gpt-test');
  t.equal(body.temperature, 0);
  t.same(body.response_format, { type: 'json_object' });
  t.same(body.messages.map((m) => m.role), ['system', 'user']);
  t.match(body.messages[0]!.content, /ONLY one JSON object/);
  t.match(body.messages[0]!.content, /"summary": string, "likelyCause": string, "suggestedFix": string, "commands": string\[\]/);
  assertUserMessage(t, request!, body.messages[1]!.content);
  t.notMatch(body.messages[1]!.content, /previous answer/, 'no retry note on the first request');
});

t.test('OpenAI-compatible: no key sends no Authorization; a null model takes defaultModel', async (t) => {
  openai.queue(openAiCompletion('```json\n' + answerJson + '\n```'));
  const explanation = await openExplainer('openai', { baseUrl: `${openai.origin}/v1`, apiKey: null, defaultModel: 'llama3.1:8b' }, { outbound }).explain(context, null);
  t.same(explanation, answer, 'a fenced answer is read');
  t.equal(openai.requests[0]!.headers.authorization, undefined, 'a local server gets no Authorization header');
  t.equal((openai.requests[0]!.json as { model: string }).model, 'llama3.1:8b');
});

t.test('no model at all: refused before any request', async (t) => {
  const error = await failure(t, openExplainer('openai', { baseUrl: `${openai.origin}/v1` }, { outbound }).explain(context, null));
  t.equal(error.kind, 'refused');
  t.match(error.message, /no model given/);
  t.equal(openai.requests.length, 0);
});

t.test('OpenAI-compatible: a malformed answer is asked again once, with a note', async (t) => {
  openai.queue(openAiCompletion('The build failed because of the lockfile.'), openAiCompletion(`Sure! ${answerJson}`));
  const explanation = await openExplainer('openai', { baseUrl: `${openai.origin}/v1`, apiKey: API_KEY }, { outbound }).explain(context, 'gpt-test');
  t.same(explanation, answer);
  t.equal(openai.requests.length, 2, 'a second request');
  const second = (openai.requests[1]!.json as { messages: { content: string }[] }).messages;
  t.equal(second.length, 2, 'still a system and a user message');
  t.match(second[1]!.content, /previous answer was not a valid JSON object/);
});

t.test('OpenAI-compatible: two malformed answers end in a malformed error', async (t) => {
  openai.queue(openAiCompletion('{"summary": "only a summary"}'), openAiCompletion(null));
  const error = await failure(t, openExplainer('openai', { baseUrl: `${openai.origin}/v1`, apiKey: API_KEY }, { outbound }).explain(context, 'gpt-test'));
  t.equal(error.kind, 'malformed');
  t.match(error.message, /gpt-test answered twice without a valid explanation/);
  t.equal(openai.requests.length, 2, 'exactly two requests, no third');
});

t.test("OpenAI-compatible: the provider's own error message is passed through, without the key", async (t) => {
  openai.queue({ status: 401, json: { error: { message: `Incorrect API key provided: ${API_KEY}.`, type: 'invalid_request_error', code: 'invalid_api_key' } } });
  const error = await failure(t, openExplainer('openai', { baseUrl: `${openai.origin}/v1`, apiKey: API_KEY }, { outbound }).explain(context, 'gpt-test'));
  t.equal(error.kind, 'refused');
  t.match(error.message, /HTTP 401: Incorrect API key provided: \[secret\]\. \(invalid_request_error\)/);
  t.notOk(error.message.includes(API_KEY), 'the key is not echoed');
  t.equal(openai.requests.length, 1, 'a refusal is not retried');
});

t.test('OpenAI-compatible: a server that never answers ends in a timeout, not a hang', async (t) => {
  openai.queue('hang');
  const started = Date.now();
  const error = await failure(t, openExplainer('openai', { baseUrl: `${openai.origin}/v1` }, { timeoutMs: 300, outbound }).explain(context, 'gpt-test'));
  t.equal(error.kind, 'timeout');
  t.match(error.message, /did not answer within 300 ms/);
  t.ok(Date.now() - started < 3000, `ended after ${Date.now() - started} ms`);
});

t.test('OpenAI-compatible: nothing listening: unreachable', async (t) => {
  const port = await freePort();
  const error = await failure(t, openExplainer('openai', { baseUrl: `http://127.0.0.1:${port}/v1` }, { timeoutMs: 5000, outbound: policyAllowing(`http://127.0.0.1:${port}`) }).explain(context, 'gpt-test'));
  t.equal(error.kind, 'unreachable');
  t.match(error.message, /ECONNREFUSED/);
});

t.test('OpenAI-compatible: verify lists the models', async (t) => {
  const models = await verifyAiProvider('openai', { baseUrl: `${openai.origin}/v1`, apiKey: API_KEY, defaultModel: null }, { timeoutMs: 5000, outbound });
  t.same(models, ['gpt-test', 'llama3.1:8b']);
  t.equal(openai.requests[0]!.method, 'GET');
  t.equal(openai.requests[0]!.path, '/v1/models');
  t.equal(openai.requests[0]!.headers.authorization, `Bearer ${API_KEY}`);
});

t.test('Anthropic: the exact request, and text blocks joined', async (t) => {
  const half = Math.floor(answerJson.length / 2);
  anthropic.queue(anthropicMessage({ type: 'text', text: answerJson.slice(0, half) }, { type: 'thinking', thinking: '{"summary": "not this"}' }, { type: 'text', text: answerJson.slice(half) }));
  const explanation = await openExplainer('anthropic', { baseUrl: anthropic.origin, apiKey: API_KEY, defaultModel: 'claude-test-1' }, { timeoutMs: 5000, outbound }).explain(context, null);
  t.same(explanation, answer);
  const [request] = anthropic.requests;
  t.equal(request!.method, 'POST');
  t.equal(request!.path, '/v1/messages');
  t.equal(request!.headers['x-api-key'], API_KEY);
  t.equal(request!.headers['anthropic-version'], '2023-06-01');
  t.match(request!.headers['content-type'], /^application\/json/);
  t.equal(request!.headers.authorization, undefined);
  const body = request!.json as { model: string; max_tokens: number; system: string; messages: { role: string; content: string }[] };
  t.equal(body.model, 'claude-test-1', 'the default model');
  t.equal(body.max_tokens, 1024);
  t.match(body.system, /ONLY one JSON object/);
  t.equal(body.messages.length, 1);
  t.equal(body.messages[0]!.role, 'user');
  assertUserMessage(t, request!, body.messages[0]!.content);
});

t.test('Anthropic: retried once, then malformed', async (t) => {
  anthropic.queue(anthropicMessage({ type: 'text', text: 'I cannot tell.' }), anthropicMessage({ type: 'text', text: '{"summary": "x", "likelyCause": "", "suggestedFix": "y", "commands": []}' }));
  const error = await failure(t, openExplainer('anthropic', { baseUrl: anthropic.origin, apiKey: API_KEY }, { outbound }).explain(context, 'claude-test-2'));
  t.equal(error.kind, 'malformed');
  t.match(error.message, /claude-test-2 answered twice without a valid explanation/);
  t.equal(anthropic.requests.length, 2);
  t.match((anthropic.requests[1]!.json as { messages: { content: string }[] }).messages[0]!.content, /previous answer was not a valid JSON object/);
});

t.test("Anthropic: the API's error passed through", async (t) => {
  anthropic.queue({ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } });
  const error = await failure(t, openExplainer('anthropic', { baseUrl: anthropic.origin, apiKey: API_KEY }, { outbound }).explain(context, 'claude-test-1'));
  t.equal(error.kind, 'refused');
  t.match(error.message, /HTTP 401: invalid x-api-key \(authentication_error\)/);
});

t.test('Anthropic: an answer whose body stalls after its headers ends in a timeout', async (t) => {
  anthropic.queue('hang-after-headers');
  const started = Date.now();
  const error = await failure(t, openExplainer('anthropic', { baseUrl: anthropic.origin, apiKey: API_KEY }, { timeoutMs: 300, outbound }).explain(context, 'claude-test-1'));
  t.equal(error.kind, 'timeout');
  t.match(error.message, /300 ms/);
  t.ok(Date.now() - started < 3000);
});

t.test('Anthropic: a key is required, and no request goes without one', async (t) => {
  const error = await failure(t, openExplainer('anthropic', { baseUrl: anthropic.origin, apiKey: null }, { outbound }).explain(context, 'claude-test-1'));
  t.equal(error.kind, 'refused');
  t.match(error.message, /API key is required/);
  t.equal(anthropic.requests.length, 0);
});

t.test('Anthropic: verify lists the models', async (t) => {
  t.same(await verifyAiProvider('anthropic', { baseUrl: anthropic.origin, apiKey: API_KEY }, { outbound }), ['claude-test-1', 'claude-test-2']);
  t.equal(anthropic.requests[0]!.method, 'GET');
  t.match(anthropic.requests[0]!.path, /^\/v1\/models(\?|$)/);
  t.equal(anthropic.requests[0]!.headers['x-api-key'], API_KEY);
  t.equal(anthropic.requests[0]!.headers['anthropic-version'], '2023-06-01');
  anthropic.queue({ status: 403, json: { type: 'error', error: { type: 'permission_error', message: 'key disabled' } } });
  const error = await failure(t, verifyAiProvider('anthropic', { baseUrl: anthropic.origin, apiKey: API_KEY }, { outbound }));
  t.match(error, { kind: 'refused', message: /key disabled/ });
});

t.test('builtin: no call, no key, no model', async (t) => {
  t.same(await verifyAiProvider('builtin', {}, { outbound }), ['builtin']);
  const explanation = await openExplainer('builtin', { baseUrl: null, apiKey: null, defaultModel: null }, { outbound }).explain(context, null);
  t.ok(failureExplanationSchema.safeParse(explanation).success);
  t.match(explanation.summary, /package-lock\.json is out of sync/);
  t.equal(openai.requests.length + anthropic.requests.length, 0, 'no provider was asked');
});

t.test('the providers and the connect body', async (t) => {
  t.same(Object.keys(AI_PROVIDERS), ['openai', 'anthropic', 'builtin']);
  t.ok(Object.values(AI_PROVIDERS).every((p) => p.name.length > 0));
  t.same(aiConnectBody.parse({ baseUrl: 'http://127.0.0.1:11434/v1', defaultModel: ' llama3.1:8b ' }), { baseUrl: 'http://127.0.0.1:11434/v1', defaultModel: 'llama3.1:8b' });
  t.same(aiConnectBody.parse({}), {});
  t.notOk(aiConnectBody.safeParse({ baseUrl: 'ftp://example.com/v1' }).success, 'only http(s)');
  t.notOk(aiConnectBody.safeParse({ baseUrl: 'not a url' }).success);
  t.notOk(aiConnectBody.safeParse({ apiKey: API_KEY, model: 'x' }).success, 'unknown keys are refused');
  t.notOk(aiConnectBody.safeParse({ apiKey: '' }).success);
  for (const baseUrl of ['http://127.0.0.1:2019/config/?', 'http://127.0.0.1:2019/load?x=1', 'http://h/v1#frag', 'http://h/v1/#', 'http://user:pw@h/v1']) {
    t.notOk(aiConnectBody.safeParse({ baseUrl }).success, `${baseUrl}: no query, fragment or credentials, so no path can be picked`);
  }
  t.same(aiConnectBody.parse({ baseUrl: 'https://llm.example.com/openai/v1/' }), { baseUrl: 'https://llm.example.com/openai/v1' }, 'a trailing slash is dropped');
});

t.test('a provider on loopback is refused unless allowed, and no request reaches it', async (t) => {
  const defaults = createDestinationPolicy({ rules: async () => ({ allowed: [], denyPrivate: false }) });
  for (const baseUrl of [`${openai.origin}/v1`, openai.origin.replace('127.0.0.1', 'localhost') + '/v1', openai.origin.replace('127.0.0.1', '[::ffff:127.0.0.1]') + '/v1']) {
    const refused = await openExplainer('openai', { baseUrl, apiKey: API_KEY }, { outbound: defaults }).explain(context, 'gpt-test').then(() => null, (e: unknown) => e);
    t.type(refused, ForbiddenDestinationError, baseUrl);
    t.match((refused as Error).message, /loopback address/);
    const verify = await verifyAiProvider('openai', { baseUrl, apiKey: API_KEY }, { outbound: defaults }).then(() => null, (e: unknown) => e);
    t.type(verify, ForbiddenDestinationError);
  }
  const otherPort = policyAllowing(`http://127.0.0.1:${await freePort()}`);
  t.type(await verifyAiProvider('openai', { baseUrl: `${openai.origin}/v1` }, { outbound: otherPort }).catch((e: unknown) => e), ForbiddenDestinationError, 'another port of the same address is not allowed');
  t.equal(openai.requests.length, 0, 'the server never saw a request');
});

t.test("an error page or plain text from a provider is never repeated, only its status; a JSON error's words at most 200 characters on one line", async (t) => {
  const page = '<!DOCTYPE html><html><body><h1>Caddy admin</h1><pre>{"apps":{"http":{"servers":"internal-secret-config"}}}</pre></body></html>';
  openai.queue({ status: 502, text: page }, { status: 404, text: 'internal-secret plain text answer' }, { status: 500, json: { error: { message: `${'x'.repeat(300)}
second line internal-secret` } } }, { status: 400, json: { message: '<html>internal-secret</html>' } });
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await failure(t, verifyAiProvider('openai', { baseUrl: `${openai.origin}/v1` }, { outbound })));
  t.match(answers[0]!.message, /answered HTTP 502 Bad Gateway$/);
  t.match(answers[1]!.message, /answered HTTP 404 Not Found$/);
  t.match(answers[2]!.message, /answered HTTP 500: x{199}…$/, 'cut to 200 characters, one line');
  t.match(answers[3]!.message, /answered HTTP 400 Bad Request$/, 'markup inside a JSON field is not repeated either');
  for (const error of answers) t.notOk(/internal-secret|<html|<!DOCTYPE/.test(error.message), error.message.slice(0, 120));
});

t.test('the paths Slipway adds are appended to the base path, never replace it', async (t) => {
  openai.queue({ json: { data: [{ id: 'm' }] } });
  await verifyAiProvider('openai', { baseUrl: `${openai.origin}/proxy/openai/v1` }, { outbound });
  t.equal(openai.requests[0]!.path, '/proxy/openai/v1/models');
});
