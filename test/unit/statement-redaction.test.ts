import t from 'tap';
import { redactStatement } from '../../commands/database/statement-redaction.js';

const CASES: [string, string][] = [
  ["ALTER USER app PASSWORD 'S3cret''x'", 'ALTER USER app PASSWORD [redacted]'],
  ["create role r with login encrypted password 'abc' valid until 'infinity'", "create role r with login encrypted password [redacted] valid until 'infinity'"],
  ["ALTER ROLE r PASSWORD $pw$se'cret$pw$", 'ALTER ROLE r PASSWORD [redacted]'],
  ["ALTER ROLE r PASSWORD E'a\\'b'", 'ALTER ROLE r PASSWORD [redacted]'],
  ["CREATE USER 'u'@'%' IDENTIFIED BY 'p4ss'", "CREATE USER 'u'@'%' IDENTIFIED BY [redacted]"],
  ["CREATE USER u IDENTIFIED WITH sha256_password BY 'pw2'", 'CREATE USER u IDENTIFIED WITH sha256_password BY [redacted]'],
  ['ALTER USER \'u\'@\'%\' IDENTIFIED WITH mysql_native_password BY "pw3"', "ALTER USER 'u'@'%' IDENTIFIED WITH mysql_native_password BY [redacted]"],
  ["SET PASSWORD FOR 'u'@'%' = 'pw4'", "SET PASSWORD FOR 'u'@'%' = [redacted]"],
  ["SET PASSWORD = PASSWORD('pw5')", 'SET PASSWORD = PASSWORD([redacted])'],
  ['AUTH s3cret', 'AUTH [redacted]'],
  ['AUTH default "s3 cret"', 'AUTH default [redacted]'],
  ['HELLO 3 AUTH default pw6', 'HELLO 3 AUTH default [redacted]'],
  ['CONFIG SET requirepass newpass', 'CONFIG SET requirepass [redacted]'],
  ["config set masterauth 'x y'", 'config set masterauth [redacted]'],
  ['ACL SETUSER alice on >pa55 ~* +@all', 'ACL SETUSER alice on [redacted] ~* +@all'],
  ['ACL SETUSER u on >a ">b c" #ff nopass ~k*', 'ACL SETUSER u on [redacted] [redacted] [redacted] nopass ~k*'],
  ['{"createUser": "u", "pwd": "pw7", "roles": []}', '{"createUser": "u", "pwd": [redacted], "roles": []}'],
];

t.test('password literals are redacted, and nothing else', async (t) => {
  for (const [statement, expected] of CASES) {
    t.equal(redactStatement(statement), expected, statement);
    t.equal(redactStatement(expected), expected, `${statement}: redacting again changes nothing`);
  }
  for (const plain of ['SELECT 1', "SELECT 'password' AS word", 'GET key', 'SET k v', 'GET x >y', '{"find": "users"}']) {
    t.equal(redactStatement(plain), plain, `${plain} stays as it is`);
  }
});
