import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { answerDialog, launchChromium, requireChromium, seriousViolations, signedInPage } from '../helpers/browser.js';
import { CLUSTER_IMAGES, clusterEnv, clusterUnavailable, startNodes } from '../helpers/cluster.js';
import { requireDocker } from '../helpers/docker.js';
import { startTestServer } from '../helpers/test-server.js';

const run = promisify(execFile);
const REGISTRY_PORT = 5443;
// Node indices of this file's engines: other cluster files use theirs at the same time.
const MANAGER = 14;
const WORKER = 15;

t.setTimeout(300_000);

const rowOf = (hostname: string) =>
  `[...document.querySelectorAll('main table tr')].find((r) => r.querySelector('td')?.textContent === '${hostname}')`;

t.test('the dashboard’s cluster: make one, add a server with the command shown once, drain it', { skip: requireChromium() || (await requireDocker()) || (await clusterUnavailable()) }, async (t) => {
  const cluster = await startNodes([MANAGER, WORKER], [CLUSTER_IMAGES.registry]);
  t.teardown(() => cluster.stop());
  const [manager, worker] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
  const s = await startTestServer(clusterEnv(manager, REGISTRY_PORT));
  t.teardown(() => s.close());
  cluster.trusts(`${manager.address}:${REGISTRY_PORT}`);
  const browser = await launchChromium();
  t.teardown(() => browser.close());

  const page = await signedInPage(browser, s.url, s.key);
  // Signed in, the page keeps the change feed open: the network is never idle.
  await page.goto(`${s.url}/installation?tab=cluster`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#cluster');
  t.match(await page.$eval('section[aria-labelledby=cluster]', (e) => e.textContent), /A single server/, 'a single server says so');
  await page.type('#cluster-address', manager.address);
  await page.click('form.cluster-init button[type=submit]');
  t.equal(await answerDialog(page), 'Make this server a Docker Swarm manager?');
  await page.waitForFunction(`document.querySelector('section[aria-labelledby=cluster]')?.textContent.includes('Manager at ${manager.address}')`, { timeout: 60_000 });
  t.ok((await s.call('GET', '/api/cluster')).body.cluster, 'the API has the cluster');

  const [add] = await page.$$('xpath/.//button[contains(., "Add a server")]');
  await add!.click();
  await page.waitForSelector('section[aria-labelledby=cluster] .secret code');
  const joinCommand = await page.$eval('section[aria-labelledby=cluster] .secret code', (e) => e.textContent ?? '');
  t.match(joinCommand, new RegExp(`docker swarm join --token \\S+ ${manager.address.replace(/\./g, '\\.')}:2377$`), 'the join command, shown once');
  await run('sh', ['-c', joinCommand], { env: { ...process.env, DOCKER_HOST: `unix://${worker.socket}` }, timeout: 60_000 });

  // The list is read when the screen opens: reloaded until Swarm has the new node ready.
  const workerName = `node${WORKER}`;
  for (let i = 0; i < 30 && !(await page.evaluate(`Boolean(${rowOf(workerName)}) && ${rowOf(workerName)}.textContent.includes('ready')`)); i++) {
    await page.reload({ waitUntil: 'domcontentloaded' });
    await new Promise((r) => setTimeout(r, 1000));
  }
  const cells = await page.evaluate(`[...${rowOf(workerName)}.querySelectorAll('td')].map((c) => c.textContent)`);
  t.match(cells, [workerName, 'worker', 'ready', 'active', worker.address], 'the new server is listed, ready and active');
  t.same(await seriousViolations(page), [], 'the cluster section is accessible');

  const [drain] = await page.$$(`xpath/.//button[contains(., "Drain") and contains(., "${workerName}")]`);
  await drain!.click();
  await page.waitForFunction(`${rowOf(workerName)}?.querySelectorAll('td')[3]?.textContent === 'drain'`, { timeout: 30_000 });
  const nodes = (await s.call('GET', '/api/cluster/nodes')).body.nodes as { hostname: string; availability: string }[];
  t.equal(nodes.find((n) => n.hostname === workerName)?.availability, 'drain', 'drained in Swarm, as the API reads it');
  t.equal(await page.$(`xpath/.//button[contains(., "Drain") and contains(., "node${MANAGER}")]`), null, 'the manager offers no drain');
});
