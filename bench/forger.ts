// A forger of webhook deliveries, as its own process: sends `rate` deliveries a second with a signature that
// cannot verify, for `seconds`, each on a new connection (every refusal closes its own), and prints how many
// were answered, by status. autocannon reconnects too slowly after a server closes to keep 200 a second.
const [url, rate, seconds] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4])];
const body = JSON.stringify({ id: 'forged', event: 'push', ref: 'refs/heads/main', after: 'a'.repeat(40) });
const headers = { 'content-type': 'application/json', 'x-slipway-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` };
const statuses: Record<string, number> = {};
const inFlight = new Set<Promise<void>>();
const start = performance.now();
for (let sent = 0; sent < rate * seconds; sent++) {
  const due = start + (sent * 1000) / rate;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const request: Promise<void> = fetch(url, { method: 'POST', headers, body })
    .then(async (r) => {
      await r.arrayBuffer();
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    })
    .catch(() => void (statuses.error = (statuses.error ?? 0) + 1))
    .finally(() => inFlight.delete(request));
  inFlight.add(request);
}
await Promise.all(inFlight);
const total = Object.entries(statuses).reduce((sum, [k, n]) => (k === 'error' ? sum : sum + n), 0);
console.log(JSON.stringify({ total, statuses, seconds: (performance.now() - start) / 1000 }));
