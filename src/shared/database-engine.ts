/** The database engines a database service can run (`engine` in the API); not to be confused with a Docker host. */
export const ENGINES = ['postgres', 'timeseries', 'mysql', 'redis', 'mongodb', 'columnar'] as const;
export type Engine = (typeof ENGINES)[number];
