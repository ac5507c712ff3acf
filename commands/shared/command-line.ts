/** A command as a client gives it: one string (run by `sh -c`) or an argv. */
export type CommandLine = string | readonly string[];

/** The argv a container runs: a string through the image's shell (`sh -c`), an array as it is. */
export const argvOf = (command: CommandLine): string[] => (typeof command === 'string' ? ['sh', '-c', command] : [...command]);
