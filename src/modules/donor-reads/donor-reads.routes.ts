import { defineRoutes, route } from '../../http/define-routes';
import { ApiError } from '../../http/errors';
import * as repo from './donor-reads.reads';
import { DONATION_STATUSES, listAnswer, listQuery, statementQuery, summaryAnswer, type DonationStatus } from './donor-reads.schemas';
import { statementCsv, statementPdf } from './statement';

function checkStatus(status: string | undefined): DonationStatus | undefined {
  if (status === undefined) return undefined;
  if ((DONATION_STATUSES as readonly string[]).includes(status)) return status as DonationStatus;
  throw new ApiError(400, 'Invalid status', `status must be one of ${DONATION_STATUSES.join(', ')}`, { allowed: [...DONATION_STATUSES] });
}

export default defineRoutes(
  '/me/donations',
  [
    route({
      method: 'get',
      path: '/summary',
      summary: 'Your giving summary',
      description: 'Bare object over your paid gifts only (pending, failed and refunded gifts are left out). Dates are null before the first paid gift.',
      auth: 'required',
      response: summaryAnswer,
      handler: async ({ db, actor }) => repo.summary(db, actor.userId),
    }),
    route({
      method: 'get',
      path: '/',
      summary: 'Your donation history',
      description:
        'Your gifts, newest first, paged `{ data, pagination }`. `status` filters (paid, refunded, failed, pending; another value answers 400 `Invalid status` with `allowed`); `fundraiser_id` must be a uuid.',
      auth: 'required',
      query: listQuery,
      response: listAnswer,
      handler: async ({ db, actor, query }) => {
        const status = checkStatus(query.status);
        const { data, total } = await repo.listForDonor(db, actor.userId, { status, fundraiserId: query.fundraiser_id, limit: query.limit, offset: query.offset });
        return { data, pagination: { limit: query.limit, offset: query.offset, total } };
      },
    }),
    route({
      method: 'get',
      path: '/statement',
      summary: 'Your annual donation statement (PDF or CSV)',
      description:
        'A download (`Content-Disposition: attachment; filename="donations-<year>.<ext>"`) of your paid gifts settled in `year` (UTC), 2026 to the current year (else 400). `format` is `pdf` (default, application/pdf) or `csv` (text/csv). It says that it is not a tax receipt.',
      auth: 'required',
      query: statementQuery,
      produces: ['application/pdf', 'text/csv'],
      handler: async ({ db, actor, query, res }) => {
        const lines = await repo.paidInYear(db, actor.userId, query.year);
        const filename = `donations-${query.year}.${query.format}`;
        res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
        res.setHeader('Cache-Control', 'private, no-store');
        if (query.format === 'csv') {
          res.status(200).type('text/csv; charset=utf-8').send(statementCsv(query.year, lines));
        } else {
          res.status(200).type('application/pdf').send(await statementPdf(query.year, actor.email, lines));
        }
      },
    }),
  ],
  { tag: 'donations' },
);
