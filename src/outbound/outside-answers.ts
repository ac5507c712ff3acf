import { STATUS_CODES } from 'node:http';

/** The most of an outside service's own words that is ever shown. */
export const MAX_OUTSIDE_MESSAGE = 200;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const MARKUP = /<[a-z!/?]/i;

/**
 * `text` as one line of at most 200 characters, or null when there is nothing to show or it looks like
 * markup (an HTML page quoted inside a JSON field is still a page).
 */
export function shortLine(text: string): string | null {
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (!line || MARKUP.test(line)) return null;
  return line.length <= MAX_OUTSIDE_MESSAGE ? line : `${line.slice(0, MAX_OUTSIDE_MESSAGE - 1)}…`;
}

/** The usual places of an error's words in a JSON answer: `error` (a string, or an object with `message`), `message`, `errors[].message`, `detail`. */
export function usualMessage(body: unknown): string | null {
  if (!isRecord(body)) return null;
  const { error, message, errors, detail } = body;
  if (typeof error === 'string' && error) return error;
  if (isRecord(error) && typeof error.message === 'string' && error.message) return error.message;
  if (typeof message === 'string' && message) return message;
  if (Array.isArray(errors)) {
    const words = errors.map((e) => (isRecord(e) && typeof e.message === 'string' ? e.message : '')).filter(Boolean);
    if (words.length > 0) return words.join('; ');
  }
  return typeof detail === 'string' && detail ? detail : null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * What may be repeated of an outside answer's body: a short line from the error field of a JSON answer
 * (`pick` knows where the provider puts it). Never anything of a body that is not JSON.
 */
export function outsideMessage(body: string, pick: (json: unknown) => string | null = usualMessage): string | null {
  const json = parseJson(body);
  if (json === undefined) return null;
  const said = pick(json);
  return said === null ? null : shortLine(said);
}

/** `HTTP 404: <its short message>`, or `HTTP 404 Not Found` (the standard phrase, not the server's) when it gave none that can be shown. */
export function outsideAnswerText(status: number, body: string, pick?: (json: unknown) => string | null): string {
  const said = outsideMessage(body, pick);
  return said ? `HTTP ${status}: ${said}` : `HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trim();
}

/**
 * A Docker engine's error with the registry answer it quotes taken out: an answer it could not read comes
 * as `error parsing HTTP 404 response body: invalid character '<' …: "<html>…"`, and only its status stays.
 */
export function withoutRegistryAnswer(message: string): string {
  return message.replace(/error parsing HTTP (\d{3}) response body[\s\S]*$/, "the registry answered HTTP $1 with something that is not a registry's answer (not shown)");
}

/** A Docker engine's report of a failed pull, as one short line without any answer of the registry it quotes. */
export function registryFailureText(message: string): string {
  const firstLine = withoutRegistryAnswer(message).split(/\r?\n/)[0] ?? '';
  // The engine quotes what it got after the first `: "`; the part before names the step and the reference.
  return shortLine(firstLine) ?? shortLine(firstLine.split(/[<"]/)[0] ?? '') ?? 'the registry refused the pull (its answer is not shown)';
}
