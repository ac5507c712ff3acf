/** A source URL as people may see it: without its password. */
export function sourceLabelOf(url: string): string {
  const u = new URL(url);
  u.password = '';
  return u.toString();
}

/** Every form the URL's password could take in a tool's message, replaced. */
export function redactSource(text: string, url: string): string {
  const { password } = new URL(url);
  if (!password) return text;
  let out = text;
  for (const form of new Set([password, decodeURIComponent(password)])) out = out.split(form).join('***');
  return out;
}
