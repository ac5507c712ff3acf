const REDACTED = '[redacted]';

// Which variables hold secrets: by name (passwords, tokens, keys, connection URLs with credentials),
// or by a value long enough to be a credential. Short plain values ("postgres", "8080", "true") stay
// readable: hiding them would blank out ordinary words all over a build log.
const SECRET_NAME = /PASS|SECRET|TOKEN|KEY|PRIVATE|CREDENTIAL|AUTH|SALT|DSN|_URL$|_URI$/i;
const MIN_NAMED_SECRET = 4;
const MIN_UNNAMED_SECRET = 12;

export function isSecretVariable(key: string, value: string): boolean {
  return value.length >= (SECRET_NAME.test(key) ? MIN_NAMED_SECRET : MIN_UNNAMED_SECRET);
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
