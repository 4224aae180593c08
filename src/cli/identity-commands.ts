import { accountAdmin as admin } from '../modules/idp';
import { oneOf, UsageError, type Command } from './command';

const ROLES = admin.GRANTABLE_ROLES;
const STATUSES = admin.STATUSES;
const needEmail = (cmd: string, email: string | undefined) => {
  if (!email || !email.includes('@')) throw new UsageError(`${cmd}: give the account's email address`);
};

/** Account operations of the operator CLI (docs/operations/jobs-and-cli.md) (an AdminError's message is the line the CLI prints). */
export const identityCommands: Record<string, Command> = {
  'grant-role': {
    usage: `<email> ${ROLES.join('|')}`,
    summary: 'give an account a role',
    check: ([email, role]) => (needEmail('grant-role', email), oneOf('role', role, ROLES)),
    run: (db, [email, role]) => admin.grantRole(db, email, role),
  },
  'revoke-role': {
    usage: `<email> ${ROLES.join('|')}`,
    summary: 'take a role away',
    check: ([email, role]) => (needEmail('revoke-role', email), oneOf('role', role, ROLES)),
    run: (db, [email, role]) => admin.revokeRole(db, email, role),
  },
  'user-status': {
    usage: `<email> ${STATUSES.join('|')}`,
    summary: "set an account's status",
    check: ([email, status]) => (needEmail('user-status', email), oneOf('status', status, STATUSES)),
    run: (db, [email, status]) => admin.setUserStatus(db, email, status),
  },
  'sign-out-everywhere': {
    usage: '<email>',
    summary: "end every session of an account",
    check: ([email]) => needEmail('sign-out-everywhere', email),
    run: (db, [email], config) => admin.signOutEverywhere(db, config, email),
  },
  'force-password-reset': {
    usage: '<email>',
    summary: 'make the next sign-in ask for a new password',
    check: ([email]) => needEmail('force-password-reset', email),
    run: (db, [email], config) => admin.forcePasswordReset(db, config, email),
  },
  'create-ambassador-invite': { usage: '[email]', summary: 'print an ambassador invite token', run: (db, [email]) => admin.createAmbassadorInvite(db, email) },
};
