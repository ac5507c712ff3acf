import { MAX_COMMANDS, type FailureContext } from './explanation.js';

export interface ExplanationPrompt {
  system: string;
  user: string;
}

const SYSTEM = `You explain why a deployment on Slipway, a self-hosted deployment platform, failed.
Slipway clones a Git repository (or pulls a container image), builds it with the repository's Dockerfile or with its packbuilder (which writes a Dockerfile for Node.js, Python, Go or static sites), starts the container with PORT set to the service's internal port, and waits until the app answers HTTP on that port.
Answer with ONLY one JSON object, no Markdown fences and no text around it, of exactly this shape:
{"summary": string, "likelyCause": string, "suggestedFix": string, "commands": string[]}
- summary: one or two sentences saying what failed.
- likelyCause: the most likely cause, quoting the decisive log line or failure reason.
- suggestedFix: concrete steps to fix it, naming the setting, file or variable to change.
- commands: at most ${MAX_COMMANDS} shell commands the user can run to check or fix it; an empty array when none help.
Base the answer on the log and settings given; when they do not show the cause, say so rather than guessing. Variable values are never shown to you: do not ask for them or invent them.`;

const RETRY_NOTE = 'Your previous answer was not a valid JSON object of the requested shape. Answer again with ONLY the JSON object.';

const orNone = (value: string | number | null) => (value === null || value === '' ? '(not set)' : String(value));

/** The messages asking a model to explain the failure; `retry` adds the note for a second try after an invalid answer. */
export function explanationPrompt(context: FailureContext, { retry = false }: { retry?: boolean } = {}): ExplanationPrompt {
  const { deployment, service } = context;
  const settings: [string, string | number | null][] = [
    ['kind', service.kind],
    ['repository', service.repoUrl],
    ['docker image', service.dockerImage],
    ['branch', service.branch],
    ['root directory', service.rootDir],
    ['build method setting', service.buildMethod],
    ['detected build method', deployment.detectedBuildMethod],
    ['Dockerfile path', service.dockerfilePath],
    ['install command', service.installCommand],
    ['build command', service.buildCommand],
    ['start command', service.startCommand],
    ['internal port', service.internalPort],
    ['runtime mode', service.runtimeMode],
    ['database engine', service.engine],
  ];
  const user = [
    `Deployment ${deployment.id} failed.`,
    `Failure reason recorded by Slipway: ${orNone(deployment.failureReason)}`,
    '',
    'Service settings:',
    ...settings.map(([name, value]) => `- ${name}: ${orNone(value)}`),
    '',
    `Environment variable names (values withheld): ${context.variableNames.length > 0 ? context.variableNames.join(', ') : '(none)'}`,
    '',
    `Last ${context.logLines.length} lines of the deployment log:`,
    '<log>',
    ...context.logLines,
    '</log>',
    ...(retry ? ['', RETRY_NOTE] : []),
  ].join('\n');
  return { system: SYSTEM, user };
}
