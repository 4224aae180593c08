import { z } from 'zod';
import { defineRoutes, route, uuid } from '../../http/define-routes';
import { requestLocale } from '../../integrations/mail';
import { isLang, type Lang } from '../fundraisers';
import { staffWithPublicProfiles, TEAM_MAX } from './team.reads';

/** The roster's `title`: the role, in the reader's language (no per-person job titles are kept). */
const TITLES: Record<'admin' | 'staff', Record<Lang, string>> = {
  admin: { en: 'Administrator', ru: 'Администратор', uk: 'Адміністратор', es: 'Administrador' },
  staff: { en: 'Team member', ru: 'Сотрудник', uk: 'Співробітник', es: 'Miembro del equipo' },
};

const teamQuery = z.object({
  lang: z.union([z.string(), z.array(z.string())]).optional().describe('en | ru | uk | es for `title`; otherwise the `lang` cookie, then Accept-Language, then en'),
});
const teamResponse = z.object({
  data: z.array(z.object({ id: uuid, name: z.string().nullable(), slug: z.string(), avatar: z.string().nullable(), title: z.string() })),
});

export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/platform/team',
      summary: 'The team roster (at most 48)',
      description:
        `Staff and admins on active accounts with a public profile that has a slug, admins first, then by name; at most ${TEAM_MAX}. ` +
        '`title` names the role in the requested language. An empty list is a normal 200.',
      auth: 'none',
      limiters: ['public'],
      query: teamQuery,
      response: teamResponse,
      handler: async ({ req, db, query }) => {
        const l = (Array.isArray(query.lang) ? query.lang[0] : query.lang)?.trim().toLowerCase();
        const lang: Lang = isLang(l) ? l : (requestLocale(req) ?? 'en');
        const rows = await staffWithPublicProfiles(db);
        return { data: rows.map((r) => ({ id: r.id, name: r.name, slug: r.slug, avatar: r.avatar, title: TITLES[r.is_admin ? 'admin' : 'staff'][lang] })) };
      },
    }),
  ],
  { tag: 'platform' },
);
