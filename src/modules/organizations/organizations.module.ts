import { defineModule } from '../define-module';
import orgAdminMembers, { memberLookupLimiter } from './org-admin-members.routes';
import orgAdmin from './org-admin.routes';
import organizations, { orgCreationLimiter } from './organizations.routes';

export default defineModule({
  name: 'organizations',
  routes: [organizations, orgAdmin, orgAdminMembers],
  limiters: [orgCreationLimiter, memberLookupLimiter],
});
