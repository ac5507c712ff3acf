import { z } from 'zod';

export interface PackImages {
  node: string;
  python: string;
  go: string;
  /** Runs compiled binaries (Go). */
  run: string;
  /** Serves static files with `busybox httpd`. */
  static: string;
}

/** The files of the service root the packbuilder looks at. */
export interface ProjectFiles {
  has(name: string): boolean;
  read(name: string): string | null;
}

export interface PackInput {
  files: ProjectFiles;
  installCommand: string | null;
  buildCommand: string | null;
  startCommand: string | null;
  runtimeMode: 'web' | 'worker' | 'static';
  internalPort: number;
  images: PackImages;
}

export type Language = 'node' | 'python' | 'go' | 'static';

export interface PackPlan {
  language: Language;
  /** What was detected, for the deployment log. */
  notes: string[];
  install: string | null;
  build: string | null;
  start: string | null;
  /** For a static site without a build: the folder of the checkout that is served (`.` for its root). */
  siteDir?: string;
}

/** Output folders static-site generators (and hand-written sites) use, in the order they are tried. */
export const STATIC_OUTPUTS = ['dist', 'build', 'out', 'public', '_site'] as const;


/** Where a static site without a build keeps its pages: the root if it has an index.html, else the first output folder with one. */
export function staticSiteDir(files: ProjectFiles): string | null {
  if (files.has('index.html')) return '.';
  return STATIC_OUTPUTS.find((dir) => files.has(`${dir}/index.html`)) ?? null;
}

const servedFrom = (dir: string | null) =>
  dir === null ? `no index.html at the root or in ${STATIC_OUTPUTS.join(', ')}: the root is served as it is` : dir === '.' ? 'served as it is' : `served from ${dir}/`;

class PackError extends Error {}

const packageJson = z
  .object({ scripts: z.record(z.string(), z.string()).optional(), main: z.string().optional() })
  .passthrough();

function readPackageJson(files: ProjectFiles) {
  const text = files.read('package.json');
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new PackError(`package.json is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = packageJson.safeParse(raw);
  if (!parsed.success) throw new PackError('package.json must hold an object with string scripts');
  return parsed.data;
}

function nodePlan(input: PackInput, pkg: z.infer<typeof packageJson>): PackPlan {
  const { files } = input;
  const pm = files.has('pnpm-lock.yaml') ? 'pnpm' : files.has('yarn.lock') ? 'yarn' : 'npm';
  const install = {
    pnpm: 'npm install -g pnpm@9 && pnpm install --frozen-lockfile',
    yarn: 'npm install -g yarn@1 && yarn install --frozen-lockfile',
    npm: files.has('package-lock.json') ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund',
  }[pm];
  const scripts = pkg.scripts ?? {};
  const build = input.buildCommand ?? (scripts.build ? `${pm} run build` : null);
  let start = input.startCommand ?? (scripts.start ? `${pm === 'yarn' ? 'yarn' : 'npm'} start` : null);
  if (!start && pkg.main) start = `node ${pkg.main}`;
  if (!start) start = ['server.js', 'index.js', 'app.js'].filter((f) => files.has(f)).map((f) => `node ${f}`)[0] ?? null;
  if (!start && input.runtimeMode !== 'static') {
    throw new PackError('Node.js app without a start command: add a "start" script to package.json or set startCommand');
  }
  return {
    language: 'node',
    notes: [`Node.js app, package manager ${pm}`, build ? `build: ${build}` : 'no build script'],
    install: input.installCommand ?? install,
    build,
    start,
  };
}

function procfileWeb(files: ProjectFiles): string | null {
  const procfile = files.read('Procfile');
  const line = procfile?.split('\n').find((l) => /^(web|worker):/.test(l.trim()));
  return line ? line.slice(line.indexOf(':') + 1).trim() : null;
}

function pythonPlan(input: PackInput): PackPlan {
  const { files } = input;
  const install = files.has('requirements.txt')
    ? 'pip install --no-cache-dir -r requirements.txt'
    : files.has('pyproject.toml')
      ? 'pip install --no-cache-dir .'
      : null;
  let start = input.startCommand ?? procfileWeb(files);
  if (!start && files.has('manage.py')) start = 'python manage.py runserver 0.0.0.0:$PORT';
  if (!start) start = ['main.py', 'app.py', 'server.py'].filter((f) => files.has(f)).map((f) => `python ${f}`)[0] ?? null;
  if (!start) {
    throw new PackError('Python app without a start command: set startCommand, add a Procfile with a "web:" line, or add main.py or app.py');
  }
  return {
    language: 'python',
    notes: [`Python app, dependencies from ${install ? (files.has('requirements.txt') ? 'requirements.txt' : 'pyproject.toml') : 'nowhere'}`],
    install: input.installCommand ?? install,
    build: input.buildCommand,
    start,
  };
}

function goPlan(input: PackInput): PackPlan {
  return {
    language: 'go',
    notes: ['Go module (go.mod)'],
    install: input.installCommand ?? 'go mod download',
    build: input.buildCommand ?? 'CGO_ENABLED=0 go build -o /slipway/app .',
    start: input.startCommand ?? '/slipway/app',
  };
}

/** Picks the language from the files at the service root; a clear error when nothing fits. */
export function detect(input: PackInput): PackPlan {
  const { files } = input;
  const pkg = readPackageJson(files);
  if (input.runtimeMode === 'static') {
    const plan = pkg ? nodePlan(input, pkg) : null;
    const siteDir = plan?.build ? null : staticSiteDir(files);
    return {
      language: 'static',
      notes: ['static site', plan?.build ? `built with: ${plan.build}` : servedFrom(siteDir)],
      install: plan && plan.build ? plan.install : null,
      build: plan?.build ?? null,
      start: null,
      ...(plan?.build ? {} : { siteDir: siteDir ?? '.' }),
    };
  }
  if (pkg) return nodePlan(input, pkg);
  if (files.has('requirements.txt') || files.has('pyproject.toml') || files.has('main.py') || files.has('app.py')) return pythonPlan(input);
  if (files.has('go.mod')) return goPlan(input);
  const siteDir = staticSiteDir(files);
  if (siteDir !== null) {
    return { language: 'static', notes: [`static site (index.html), ${servedFrom(siteDir)}`], install: null, build: null, start: null, siteDir };
  }
  throw new PackError(
    `could not detect how to build this app: no package.json, requirements.txt, pyproject.toml, go.mod or index.html in the service root directory or in ${STATIC_OUTPUTS.join(', ')} (add one, or a Dockerfile)`,
  );
}
