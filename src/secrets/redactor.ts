const REDACTED = '[redacted]';

// Which variables hold secrets: by name (passwords, tokens, keys, connection URLs with credentials), or by a
// value shaped like one (a URL with a password, a private key, a generated token). Plain values ("postgres",
// "8080", "production-eu-west-1", an image name) stay readable whatever their length: hiding them would blank
// out ordinary words all over a log, and break the commands an explanation suggests.
const SECRET_NAME = /PASS|SECRET|TOKEN|KEY|PRIVATE|CREDENTIAL|AUTH|SALT|DSN|_URL$|_URI$/i;
const MIN_NAMED_SECRET = 4;
const CREDENTIAL_URL = /^[a-z][a-z0-9+.-]*:\/\/[^\s/@]*:[^\s/@]+@/i;
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
/** A token's random part: one run this long between separators. */
const MIN_TOKEN_RUN = 12;

/** A run of characters that no one would type: letters and digits mixed, or letters changing case again and again. */
function isRandomRun(run: string): boolean {
  if (run.length < MIN_TOKEN_RUN) return false;
  if (/[a-z]/i.test(run) && /\d/.test(run)) return true;
  return (run.match(/[a-z][A-Z]|[A-Z][a-z]/g)?.length ?? 0) >= 4;
}

/** A value shaped like a credential whatever its variable's name. */
export function looksLikeCredential(value: string): boolean {
  if (CREDENTIAL_URL.test(value) || PRIVATE_KEY.test(value)) return true;
  if (/\s/.test(value)) return false;
  return value.split(/[-_./:@+=,~]/).some(isRandomRun);
}

export function isSecretVariable(key: string, value: string): boolean {
  if (value.length < MIN_NAMED_SECRET) return false;
  return SECRET_NAME.test(key) || looksLikeCredential(value);
}

/** Replaces every occurrence of any secret value; longer values first, so one containing another is hidden whole. */
export function createRedactor(secrets: Iterable<string>): (line: string) => string {
  const values = [...new Set([...secrets].filter((s) => s.length >= MIN_NAMED_SECRET))].sort((a, b) => b.length - a.length);
  if (values.length === 0) return (line) => line;
  const pattern = new RegExp(values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return (line) => line.replace(pattern, REDACTED);
}

/** The secret values among a service's variables, as written and as resolved. */
export function secretValues(variables: { key: string; value: string; resolved: string }[]): string[] {
  return variables.flatMap((v) => [v.value, v.resolved].filter((value) => isSecretVariable(v.key, value)));
}
