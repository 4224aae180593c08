import { defineModule } from '../define-module';
import orgAdminMembers, { memberLookupLimiter } from './org-admin-members.routes';
import orgAdmin from './org-admin.routes';
import organizations, { orgCreationLimiter } from './organizations.routes';
import { organizationsPersonalData } from './organizations.personal-data';

export default defineModule({
  name: 'organizations',
  personalData: organizationsPersonalData,
  routes: [organizations, orgAdmin, orgAdminMembers],
  limiters: [orgCreationLimiter, memberLookupLimiter],
});
