import { Option, type Command } from 'commander';
import type { AdminRequest } from '../admin-commands.js';

/** What every command group is given by main.ts. */
export interface CliContext {
  /** The --data-dir given before the command, if any. */
  dataDir(): string | undefined;
  /** Runs a command on this machine's installation (through its running server when there is one). */
  admin(request: AdminRequest, o?: { json?: boolean }): Promise<void>;
}

export const yes = () => new Option('-y, --yes', 'do it without asking (needed when there is no terminal to ask on)');
export const inProject = () => new Option('--project <project>', 'the project of a service named by its name alone');
export const json = () => new Option('--json', "print the API's answers as JSON (one object per line), for scripts");
export const list = (value: string, previous: string[] = []) => [...previous, value];

/**
 * The former name of a renamed command (docs/GLOSSARY.md): it still works, is left out of the help, and says
 * its new name on stderr, so scripts keep running and their authors learn the one name.
 */
export function formerName(parent: Command, usage: string, old: string, now: string): Command {
  return parent.command(usage, { hidden: true }).hook('preAction', () => {
    process.stderr.write(`slipway: \`${old}\` is now \`${now}\` (the old name still works)\n`);
  });
}
