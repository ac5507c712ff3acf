import type { Engine } from './shared/database-engine.js';
import type { PackImages } from './build/packbuilder/detect.js';

/** Each image setting of `PATCH /api/settings` and the environment variable that gives its default. */
export const IMAGE_SETTINGS = {
  packNodeImage: 'SLIPWAY_PACK_NODE_IMAGE',
  packPythonImage: 'SLIPWAY_PACK_PYTHON_IMAGE',
  packGoImage: 'SLIPWAY_PACK_GO_IMAGE',
  packRunImage: 'SLIPWAY_PACK_RUN_IMAGE',
  packStaticImage: 'SLIPWAY_PACK_STATIC_IMAGE',
  dbImagePostgres: 'SLIPWAY_DB_IMAGE_POSTGRES',
  dbImageTimeseries: 'SLIPWAY_DB_IMAGE_TIMESERIES',
  dbImageMysql: 'SLIPWAY_DB_IMAGE_MYSQL',
  dbImageRedis: 'SLIPWAY_DB_IMAGE_REDIS',
  dbImageMongodb: 'SLIPWAY_DB_IMAGE_MONGODB',
  dbImageColumnar: 'SLIPWAY_DB_IMAGE_COLUMNAR',
} as const;

export type ImageSettingName = keyof typeof IMAGE_SETTINGS;
export type ImageSettings = Record<ImageSettingName, string>;
export const IMAGE_SETTING_NAMES = Object.keys(IMAGE_SETTINGS) as ImageSettingName[];

/** The images builds and database deployments use, from the settings in force when they start. */
export interface InstallationImages {
  pack: PackImages;
  databases: Record<Engine, string>;
}

export const installationImages = (s: ImageSettings): InstallationImages => ({
  pack: { node: s.packNodeImage, python: s.packPythonImage, go: s.packGoImage, run: s.packRunImage, static: s.packStaticImage },
  databases: {
    postgres: s.dbImagePostgres,
    timeseries: s.dbImageTimeseries,
    mysql: s.dbImageMysql,
    redis: s.dbImageRedis,
    mongodb: s.dbImageMongodb,
    columnar: s.dbImageColumnar,
  },
});

/** The setting naming an image a build or a database deployment used, with its variable; null for any other image. */
export function imageSettingOf(images: ImageSettings, reference: string): { setting: ImageSettingName; variable: string } | null {
  const setting = IMAGE_SETTING_NAMES.find((name) => images[name] === reference);
  return setting ? { setting, variable: IMAGE_SETTINGS[setting] } : null;
}
