import { Option, type Command } from 'commander';
import { inProject, json, type CliContext } from './options.js';

const jobs = () => import('../api/jobs.js');

/** jobs <service> (list), jobs create, jobs rm, jobs run, jobs runs. */
export function jobCommands(program: Command, _cli: CliContext): void {
  const group = program
    .command('jobs')
    .description('scheduled jobs: `slipway jobs <project>/<service>` lists a service’s jobs')
    .argument('[service]', 'the service whose jobs to list')
    .addOption(inProject())
    .addOption(json())
    .action(async (service: string | undefined, o: { project?: string; json?: boolean }) => {
      if (!service) {
        group.help();
        return;
      }
      await (await jobs()).listJobs(service, o);
    });

  group
    .command('create <service> [command...]')
    .description('schedule the command given after -- (one word is run with sh -c; several are the argv)')
    .requiredOption('--name <name>', 'unique among the service’s jobs')
    .requiredOption('--schedule <cron>', 'five cron fields, or @hourly, @daily, @weekly, @monthly, @yearly, @midnight')
    .option('--timezone <zone>', 'the IANA zone the schedule is read in (default UTC)')
    .option('--timeout <seconds>', 'stop a run after this long (default 3600)')
    .addOption(new Option('--concurrency <policy>', 'a due time while a run is still going (default forbid)').choices(['forbid', 'replace', 'allow']))
    .option('--disabled', 'create it disabled')
    .addOption(inProject())
    .addOption(json())
    .action(async (service: string, command: string[], o) => {
      await (await jobs()).createJob(service, command, o);
    });

  group
    .command('rm <job>')
    .description('delete a job (its id, or <project>/<service>/<name>)')
    .addOption(inProject())
    .addOption(json())
    .action(async (job: string, o) => {
      await (await jobs()).removeJob(job, o);
    });

  group
    .command('runs <job>')
    .description('a job’s runs, newest first: scheduled, skipped and run now')
    .option('--limit <n>', 'how many (default 20)')
    .addOption(inProject())
    .addOption(json())
    .action(async (job: string, o) => {
      await (await jobs()).listJobRuns(job, o);
    });

  group
    .command('run <job>')
    .description('run a job now and follow its output like `slipway run`; exits with the command’s exit code (Ctrl-C cancels the run)')
    .addOption(inProject())
    .addOption(json())
    .action(async (job: string, o) => {
      process.exitCode = await (await jobs()).runJobNow(job, o);
    });
}
