import { IMAGE_SETTINGS, imageSettingOf, type ImageSettingName } from '../../../installation-images.js';
import type { FailureContext } from '../explanation.js';
import { find, quote } from './log-lines.js';
import { API_HEADERS, redeploy, sh } from './commands.js';
import type { BuiltinRule } from './rule.js';

const PULL_CAUSES: [RegExp, string, string][] = [
  [
    /manifest unknown|manifest for \S+ not found|not found: manifest/i,
    'the registry has no such tag: the tag (or the whole image name) is misspelt or was never pushed',
    'Check the tags the registry has and set the service to an existing one.',
  ],
  [
    /pull access denied|denied|unauthorized|authentication required|may require 'docker login'/i,
    'the registry refused the pull: the repository does not exist or is private. Slipway pulls without registry credentials',
    'Use a public image, fix the name, or pull the private image once on the Slipway server after docker login: an image already present is used without pulling.',
  ],
  [
    /no such host|lookup \S+|dial tcp|i\/o timeout|connection refused|TLS handshake timeout|server misbehaving|network is unreachable/i,
    'the Slipway server could not reach the registry (DNS, firewall or proxy)',
    'Fix the server\'s network path to the registry, or pull the image on the server by other means; then deploy again.',
  ],
];

// A build's FROM image that the engine could not pull; "permission denied" and the like are build errors.
const BASE_IMAGE_MISSING = /manifest unknown|manifest for \S+ not found|pull access denied|repository does not exist|may require 'docker login'/i;

const REGISTRY_UNREACHABLE = PULL_CAUSES[2]![0];

const ENGINE_SETTINGS: Record<string, ImageSettingName> = {
  postgres: 'dbImagePostgres',
  timeseries: 'dbImageTimeseries',
  mysql: 'dbImageMysql',
  redis: 'dbImageRedis',
  mongodb: 'dbImageMongodb',
  columnar: 'dbImageColumnar',
};

// The name `npm run images -- NAME` takes for the local stand-in of each setting's image (scripts/lib/docker.sh);
// MongoDB has none.
const STAND_IN_NAMES: Record<ImageSettingName, string | null> = {
  packNodeImage: 'node',
  packPythonImage: 'python',
  packGoImage: 'go',
  packRunImage: 'base',
  packStaticImage: 'static',
  dbImagePostgres: 'postgres',
  dbImageTimeseries: 'postgres',
  dbImageMysql: 'mysql',
  dbImageRedis: 'redis',
  dbImageMongodb: null,
  dbImageColumnar: 'clickhouse',
};

/** The stand-in name of one of the local images (`slipway/db-postgres:bookworm` → postgres), or null. */
export function standInName(image: string): string | null {
  const m = /^slipway\/([a-z-]+):bookworm$/.exec(image);
  if (!m) return null;
  const dir = m[1]!;
  if (dir === 'debian-base') return 'base';
  if (/^cluster-(registry|caddy|agent)$/.test(dir)) return dir;
  return /^(?:runtime-(node|python|go|static)|db-(postgres|mysql|redis|clickhouse)|test-(web))$/.exec(dir)?.slice(1).find(Boolean) ?? null;
}

const buildsIt = (name: string) => `\`npm run images -- ${name}\` in Slipway's checkout builds that local stand-in and prints the setting that uses it.`;

/**
 * For an image the installation chose (a packbuilder base, a database engine's image): the setting that names
 * it, how to change it, and the `npm run images -- NAME` that builds its local stand-in when no registry is
 * reachable. For one of the local images themselves (slipway/test-web:bookworm), the command that builds it.
 */
function imageSettingAdvice(c: FailureContext, image: string): { fix: string; commands: string[] } | null {
  const engineSetting = c.service.kind === 'database' && c.service.engine ? ENGINE_SETTINGS[c.service.engine] : undefined;
  const setting = engineSetting ?? (c.imageSettings ? imageSettingOf(c.imageSettings, image)?.setting : undefined);
  if (!setting) {
    const local = standInName(image);
    return local ? { fix: ` ${image} is one of Slipway's local images, built on the server rather than pulled: ${buildsIt(local)}`, commands: [`npm run images -- ${local}`] } : null;
  }
  const variable = IMAGE_SETTINGS[setting];
  const standIn = standInName(image) ?? STAND_IN_NAMES[setting];
  return {
    fix:
      ` The image comes from the installation setting ${setting} (environment variable ${variable}): point it at an image the server has or can pull, ` +
      `through the API (PATCH /api/settings, no restart) or in Slipway's environment. Without a reachable registry, ` +
      (standIn ? buildsIt(standIn) : 'there is no local stand-in for it (`npm run images` builds the others).'),
    commands: [
      ...(standIn ? [`npm run images -- ${standIn}`] : []),
      `slipway settings set ${setting}=IMAGE`,
      `curl -s -XPATCH "$SLIPWAY_URL/api/settings" ${API_HEADERS} -H 'content-type: application/json' -d ${sh(JSON.stringify({ [setting]: 'IMAGE' }))}`,
    ],
  };
}

export const imagePull: BuiltinRule = {
  id: 'image-pull-failed',
  explain(input) {
    const { reason } = input;
    const pull = reason.match(/^pulling (\S+) (?:failed: (.*)|did not finish within (\d+) s)$/);
    const lastStep = [...input.lines].reverse().find((l) => /^Step \d+\/\d+ : /.test(l));
    // The engine stopped at a FROM line because it could not reach the base image's registry.
    const baseUnreachable = Boolean(lastStep && /^Step \d+\/\d+ : FROM /.test(lastStep) && REGISTRY_UNREACHABLE.test(reason));
    const fromBuild = /^docker build failed: /.test(reason) && (BASE_IMAGE_MISSING.test(reason) || baseUnreachable);
    if (!pull && !fromBuild) return null;
    const base = baseUnreachable ? lastStep!.match(/^Step \d+\/\d+ : FROM (\S+)/) : find(input.lines, /^Step \d+\/\d+ : FROM (\S+)/);
    const image = pull?.[1] ?? reason.match(/(?:pull access denied for|manifest for) (\S+?),? /)?.[1] ?? base?.[1] ?? input.context.service.dockerImage ?? 'the image';
    const message = pull ? (pull[2] ?? '') : reason.slice('docker build failed: '.length);
    const setting = imageSettingAdvice(input.context, image);
    if (pull?.[3]) {
      return {
        summary: `Pulling the image ${image} did not finish within ${pull[3]} s.`,
        likelyCause: `The registry of ${image} accepted the connection but sent the image too slowly or not at all: a slow or blocked network path, a registry that hangs, or a very large image.`,
        suggestedFix: `Pull ${image} by hand on the Slipway server to see how long it takes. If it completes, deploy again (an image already present is not pulled again) or raise SLIPWAY_PULL_TIMEOUT; if it hangs, fix the network path to the registry.${setting?.fix ?? ''}`,
        commands: [`time docker pull ${sh(image)}`, redeploy, ...(setting?.commands ?? [])],
      };
    }
    const [, cause, fix] = PULL_CAUSES.find(([p]) => p.test(message)) ?? [null, 'the registry or the network refused the pull', 'Pull the image by hand on the Slipway server to see the full error.'];
    const where = setting ? '' : fromBuild ? ' The image is named in the FROM line of the Dockerfile.' : '';
    return {
      summary: `The image ${image} could not be pulled${fromBuild ? ' as the base image of the build' : ''}.`,
      likelyCause: `The Docker engine answered ${quote(message)}: ${cause}.`,
      suggestedFix: `${fix}${where}${setting?.fix ?? ''}`,
      commands: [`docker pull ${sh(image)}`, `docker manifest inspect ${sh(image)}`, ...(setting?.commands ?? [])],
    };
  },
};
