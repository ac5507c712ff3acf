import t from 'tap';
import { redactSource, sourceLabelOf, sourcePartsOf, sourceUrlProblem } from '../../src/engines/import-sources.js';
import { sourceEndpoint } from '../../src/engines/postgres-import.js';

t.test('labels drop the user info and every parameter whose name suggests a secret', async (t) => {
  t.equal(sourceLabelOf('postgresql://app:S3cret@db.example.com:5432/shop'), 'postgresql://db.example.com:5432/shop');
  t.equal(
    sourceLabelOf('postgresql://db.example.com/shop?sslmode=require&password=S3cret&sslpassword=K3y&application_name=x&api_key=A&Token=T&auth=Z&credentials=C&pwd=P&pass=Q&secret=R'),
    'postgresql://db.example.com/shop?sslmode=require&application_name=x',
  );
  t.equal(sourceLabelOf('rediss://default:S3cret@cache.example.com:6380/2?password=S3cret'), 'rediss://cache.example.com:6380/2');
});

t.test('redaction: the password of the user info and of a parameter, raw, encoded and decoded', async (t) => {
  const url = 'postgresql://app:p%40ss%3Aword@db.example.com/shop?sslpassword=k%2Fey';
  t.equal(redactSource('auth failed for p%40ss%3Aword, p@ss:word and k/ey or k%2Fey', url), 'auth failed for ***, *** and *** or ***');
});

t.test('source URLs: one host, and only parameters that do not choose where or with which file to connect', async (t) => {
  const problem = (source: 'postgres-url' | 'redis-url', url: string) => sourceUrlProblem(source, new URL(url));
  t.equal(problem('postgres-url', 'postgresql://u:p@db.example.com:5432/x?sslmode=verify-full&application_name=a'), null);
  t.equal(problem('postgres-url', 'postgresql://u@[::1]:5432/x'), null);
  for (const name of ['host', 'hostaddr', 'port', 'service', 'passfile', 'sslkey', 'sslrootcert', 'sslcert']) {
    t.match(problem('postgres-url', `postgresql://u@db.example.com/x?${name}=127.0.0.1`), new RegExp(`parameter ${name} is not supported`), name);
  }
  t.match(problem('postgres-url', 'postgresql://u@a,b/x'), /one host/);
  t.equal(problem('redis-url', 'redis://:p@cache:6379/0?password=x'), null);
  t.match(problem('redis-url', 'redis://cache:6379?family=6'), /family/);
  t.same(sourcePartsOf('redis-url', 'rediss://default:p%40ss@cache.example.com/1'), { host: 'cache.example.com', port: 6379, username: 'default', password: 'p@ss', tls: true });
  t.same(sourcePartsOf('postgres-url', 'postgresql://db.example.com/x?password=q'), { host: 'db.example.com', port: 5432, username: null, password: 'q', tls: false });
});

t.test('the Postgres source the helper gets: no password, hostaddr pinned to the checked address, host kept for TLS', async (t) => {
  t.same(sourceEndpoint('postgresql://app:S3cret@db.example.com:5433/shop?sslmode=verify-full&hostaddr=127.0.0.1', '93.184.216.34'), {
    url: 'postgresql://app@db.example.com:5433/shop?sslmode=verify-full&hostaddr=93.184.216.34',
    password: 'S3cret',
  });
  t.same(sourceEndpoint('postgresql://app@legacy-db:5432/shop?password=p', 'legacy-db'), { url: 'postgresql://app@legacy-db:5432/shop', password: 'p' }, 'a service of the project by its name');
});
