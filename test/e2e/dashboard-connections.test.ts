import t from 'tap';
import { answerDialog, launchChromium, requireChromium, seriousViolations, signedInPage } from '../helpers/browser.js';
import { startFakeOpenAi } from '../helpers/fake-ai-servers.js';
import { allowingIn } from '../helpers/outbound.js';
import { startS3Server } from '../helpers/s3-server.js';
import { startTestServer } from '../helpers/test-server.js';

const pdnsUrl = process.env.PDNS_TEST_URL;

t.test('the installation screen connects DNS, AI and remote storage, and shows each refusal where it was asked', { skip: requireChromium() }, async (t) => {
  const ai = await startFakeOpenAi();
  t.teardown(() => ai.close());
  const s3 = await startS3Server();
  t.teardown(() => s3.stop());
  const s = await startTestServer(allowingIn({}, ai.origin, s3.endpoint, ...(pdnsUrl ? [pdnsUrl] : [])));
  t.teardown(() => s.close());
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await signedInPage(browser, s.url, s.key);
  // Signed in, the page keeps the change feed open: the network is never idle.
  await page.goto(s.url + '/installation?tab=connections', { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#storage-endpoint');
  const settings = async () => (await s.call('GET', '/api/settings')).body.settings;
  const section = (id: string) => `xpath/.//section[@aria-labelledby="${id}"]`;
  const fill = async (values: Record<string, string>) => {
    for (const [id, value] of Object.entries(values)) {
      await page.click(`#${id}`, { count: 3 });
      await page.keyboard.press('Backspace');
      await page.type(`#${id}`, value);
    }
  };
  const submit = (form: string) => page.click(`form[aria-label="${form}"] button[type=submit]`);
  const alertIn = async (form: string) => (await page.waitForSelector(`form[aria-label="${form}"] [role=alert]`))!.evaluate((e) => e.textContent ?? '');

  t.same(await seriousViolations(page), [], 'the installation screen with its connection forms is accessible');

  await t.test('remote storage: a bucket that does not exist is refused at the form; the real one connects and disconnects', async (t) => {
    const storage = { 'storage-endpoint': s3.endpoint, 'storage-region': s3.region, 'storage-accessKeyId': s3.accessKeyId, 'storage-secretAccessKey': s3.secretAccessKey };
    await fill({ ...storage, 'storage-bucket': 'no-such-bucket' });
    await page.click('form[aria-label="Connect remote storage"] input[name=forcePathStyle]');
    await submit('Connect remote storage');
    t.match(await alertIn('Connect remote storage'), /bucket/i, 'the storage’s own refusal');
    t.equal((await settings()).remoteStorage.connected, false, 'nothing saved');
    await fill({ 'storage-bucket': s3.bucket, 'storage-secretAccessKey': s3.secretAccessKey });
    await submit('Connect remote storage');
    await page.waitForSelector(`${section('remote-storage')}//p[starts-with(normalize-space(.), "Connected")]`);
    t.match(await settings(), { remoteStorage: { connected: true, bucket: s3.bucket, forcePathStyle: true } });
    t.notMatch(await page.content(), new RegExp(`value="${s3.secretAccessKey}"`), 'the secret is not left on the page');
    await page.click(`${section('remote-storage')}//button[contains(@class, "danger")]`);
    t.equal(await answerDialog(page), 'Disconnect the remote storage?');
    await page.waitForSelector(`${section('remote-storage')}//p[starts-with(text(), "Not connected")]`);
    t.equal((await settings()).remoteStorage.connected, false);
  });

  await t.test('AI: a destination the policy refuses is said at the form; the provider connects with its models listed', async (t) => {
    await page.click(`${section('ai-providers')}//details[1]/summary`);
    await fill({ 'ai-openai-baseUrl': 'http://127.0.0.1:9/v1', 'ai-openai-apiKey': 'sk-test' });
    await submit('Connect OpenAI-compatible (OpenAI, Ollama, vLLM, LM Studio)');
    t.match(await alertIn('Connect OpenAI-compatible (OpenAI, Ollama, vLLM, LM Studio)'), /127\.0\.0\.1/, 'the refused destination named');
    await fill({ 'ai-openai-baseUrl': `${ai.origin}/v1`, 'ai-openai-apiKey': 'sk-test', 'ai-openai-defaultModel': 'llama3.1:8b' });
    await submit('Connect OpenAI-compatible (OpenAI, Ollama, vLLM, LM Studio)');
    await page.waitForSelector(`${section('ai-providers')}//summary[contains(., "model llama3.1:8b")]`);
    t.match((await settings()).aiProviders.find((p: { id: string }) => p.id === 'openai'), { connected: true, defaultModel: 'llama3.1:8b', hasApiKey: true });
  });

  await t.test('DNS: PowerDNS connects with the zones it lists; a wrong key is refused with its words', { skip: pdnsUrl ? false : 'PDNS_TEST_URL is not set (npm test starts PowerDNS)' }, async (t) => {
    await page.click(`${section('dns-providers')}//details[3]/summary`);
    await fill({ 'dns-powerdns-baseUrl': pdnsUrl!, 'dns-powerdns-apiKey': 'wrong-key', 'dns-powerdns-serverId': process.env.PDNS_TEST_SERVER_ID ?? 'localhost' });
    await submit('Connect PowerDNS');
    t.match(await alertIn('Connect PowerDNS'), /401|Unauthorized/i);
    await fill({ 'dns-powerdns-apiKey': process.env.PDNS_TEST_API_KEY! });
    await submit('Connect PowerDNS');
    await page.waitForSelector(`${section('dns-providers')}//summary[starts-with(normalize-space(.), "PowerDNS — connected")]`);
    t.match((await settings()).dnsProviders.find((p: { id: string }) => p.id === 'powerdns'), { connected: true });
    await page.click(`${section('dns-providers')}//button[contains(@class, "danger")]`);
    await answerDialog(page);
    await page.waitForSelector(`${section('dns-providers')}//summary[normalize-space(.)="PowerDNS — not connected"]`);
  });
});
