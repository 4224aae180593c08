import { accountAdmin as admin } from '../modules/idp';
import type { Command } from './command';

/** Account operations of decisions.md "Operator CLI" (an AdminError's message is the line the CLI prints). */
export const identityCommands: Record<string, Command> = {
  'grant-role': { usage: '<email> admin|staff|ambassador', run: (db, [email, role]) => admin.grantRole(db, email, role) },
  'revoke-role': { usage: '<email> admin|staff|ambassador', run: (db, [email, role]) => admin.revokeRole(db, email, role) },
  'user-status': {
    usage: '<email> active|suspended|banned|deactivated',
    run: (db, [email, status]) => admin.setUserStatus(db, email, status),
  },
  'sign-out-everywhere': { usage: '<email>', run: (db, [email], config) => admin.signOutEverywhere(db, config, email) },
  'force-password-reset': { usage: '<email>', run: (db, [email], config) => admin.forcePasswordReset(db, config, email) },
  'create-ambassador-invite': { usage: '[email]', run: (db, [email]) => admin.createAmbassadorInvite(db, email) },
};
