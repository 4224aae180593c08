import { setOrganizationVerified } from '../modules/organizations';
import { CliError, type Command } from './command';

/** Organization operations: the verified badge is the platform's to give, so only an operator sets it. */
export const orgCommands: Record<string, Command> = {
  'verify-org': {
    usage: '<slug> on|off',
    summary: "set an organization's verified badge",
    async run(db, [slug, value]) {
      if (!slug) throw new CliError('verify-org: give the organization slug');
      if (value !== 'on' && value !== 'off') throw new CliError('verify-org: value must be on or off');
      const org = await setOrganizationVerified(db, slug.toLowerCase(), value === 'on');
      if (!org) throw new CliError(`verify-org: no organization ${slug}`);
      return `organization ${org.slug} is now ${value === 'on' ? 'verified' : 'not verified'}`;
    },
  },
};
