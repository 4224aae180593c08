import { SigningKeyStore, RETIRED_KEY_MARGIN_S } from '../integrations/idp/local/signing-keys';
import { TOKEN_TTL_SECONDS } from '../integrations/idp/port';
import { accountAdmin as admin } from '../modules/idp';
import { CliError, oneOf, UsageError, type Command } from './command';

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
  'rotate-idp-key': {
    usage: '',
    summary: "make a new signing key of the built-in identity provider current (nobody is signed out: older keys stay published until their tokens expire)",
    check: (args) => {
      if (args.length) throw new UsageError(`unknown argument: ${args[0]}`);
    },
    async run(db, _args, config) {
      if (config.IDP !== 'local') throw new CliError('rotate-idp-key: IDP=cognito: the user pool rotates its own keys');
      const r = (await new SigningKeyStore(db).rotate())!;
      const until = new Date(Date.now() + (TOKEN_TTL_SECONDS + RETIRED_KEY_MARGIN_S) * 1000).toISOString();
      return `signing key ${r.kid} is current; ${r.retired.length} retired key(s) (${r.retired.join(', ') || 'none'}) stay published until ${until}`;
    },
  },
  'create-ambassador-invite': { usage: '[email]', summary: 'print an ambassador invite token', run: (db, [email]) => admin.createAmbassadorInvite(db, email) },
};
