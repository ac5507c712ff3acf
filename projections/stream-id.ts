/** The aggregate id inside a `<category>-<id>` stream name. */
export const aggregateIdOf = (streamId: string) => streamId.slice(streamId.indexOf('-') + 1);

export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
