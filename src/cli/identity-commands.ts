import * as admin from '../modules/idp/idp.admin';
import type { Command } from './commands';

async function wrap(fn: () => Promise<string>): Promise<string> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof admin.AdminError) throw new Error(err.message);
    throw err;
  }
}

/** Account operations of decisions.md "Operator CLI". */
export const identityCommands: Record<string, Command> = {
  'grant-role': { usage: '<email> admin|staff|ambassador', run: (db, [email, role]) => wrap(() => admin.grantRole(db, email, role)) },
  'revoke-role': { usage: '<email> admin|staff|ambassador', run: (db, [email, role]) => wrap(() => admin.revokeRole(db, email, role)) },
  'user-status': {
    usage: '<email> active|suspended|banned|deactivated',
    run: (db, [email, status]) => wrap(() => admin.setUserStatus(db, email, status)),
  },
  'sign-out-everywhere': { usage: '<email>', run: (db, [email], config) => wrap(() => admin.signOutEverywhere(db, config, email)) },
  'force-password-reset': { usage: '<email>', run: (db, [email], config) => wrap(() => admin.forcePasswordReset(db, config, email)) },
  'create-ambassador-invite': { usage: '[email]', run: (db, [email]) => wrap(() => admin.createAmbassadorInvite(db, email)) },
};
