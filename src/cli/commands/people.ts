import { Option, type Command } from 'commander';
import { json, type CliContext } from './options.js';

const people = () => import('../api/people.js');
const ROLES = ['owner', 'admin', 'member'];

/** users, invitations, members: people and their roles. */
export function peopleCommands(program: Command, _cli: CliContext): void {
  const users = program.command('users').description('the people with an account, and their installation roles');
  users
    .command('create-owner')
    .description("the installation's first owner, with the bootstrap key (the password is read from stdin, hidden on a terminal)")
    .requiredOption('--email <email>', 'their e-mail')
    .requiredOption('--name <name>', 'their name')
    .addOption(json())
    .action(async (o) => (await people()).createOwner(o));
  users.command('list').description('everyone with an account').addOption(json()).action(async (o) => (await people()).listUsers(o));
  users
    .command('role <userId> <role>')
    .description('change an installation role (owner, admin, member); owners only')
    .addOption(json())
    .action(async (userId: string, role: string, o) => {
      if (!ROLES.includes(role)) throw new (await import('../api/client.js')).CliError(`${role}: an installation role is owner, admin or member`);
      await (await people()).setUserRole(userId, role as 'owner', o);
    });
  users
    .command('remove <userId>')
    .description('remove a person: their sessions and keys stop at once')
    .option('--erase', 'also shred their e-mail and name everywhere (the history says "deleted user <id>")')
    .addOption(json())
    .action(async (userId: string, o) => (await people()).removeUser(userId, o));

  const invitations = program.command('invitations').description('invite people: a single-use link, valid 7 days');
  invitations
    .command('create <email>')
    .description('invite a person; prints the link to send them, shown once')
    .addOption(new Option('--role <role>', 'their installation role').choices(ROLES).default('member'))
    .option('--project <project:role...>', 'for a member: a project (slug or id) and their role there, admin, deployer or viewer')
    .addOption(json())
    .action(async (email: string, o) => (await people()).invite(email, o));
  invitations.command('list').description('invitations not yet accepted, revoked or expired').addOption(json()).action(async (o) => (await people()).listInvitations(o));
  invitations.command('revoke <id>').description('revoke an invitation: its link stops working').addOption(json()).action(async (id: string, o) => (await people()).revokeInvitation(id, o));

  const members = program.command('members').description("a project's members and their roles (admin, deployer, viewer)");
  members.command('list <project>').description("the project's members").addOption(json()).action(async (project: string, o) => (await people()).listMembers(project, o));
  members
    .command('set <project> <userId> <role>')
    .description('give a person a role in the project (admin, deployer or viewer)')
    .addOption(json())
    .action(async (project: string, userId: string, role: string, o) => (await people()).setMember(project, userId, role, o));
  members
    .command('remove <project> <userId>')
    .description('take a person out of the project')
    .addOption(json())
    .action(async (project: string, userId: string, o) => (await people()).removeMember(project, userId, o));
}
