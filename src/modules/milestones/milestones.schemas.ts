import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { isoDateInRange, safeInt } from '../../http/schema-helpers';
import { LOCALES } from '../../integrations/translate';

export const STATUSES = ['planned', 'in_progress', 'done'] as const;

export const projectParams = z.object({ fundraiserId: uuid });
export const fundraiserParams = z.object({ id: uuid });
export const milestoneParams = z.object({ fundraiserId: uuid, milestoneId: uuid });
export const langQuery = z.object({ lang: z.enum(LOCALES).optional().describe('overlay title and description with this locale\'s translation where one exists') });

const title = z.string().min(1).max(200);
const description = z.string().max(5000).nullable().optional().describe('plain text (markup removed); null or blank means none');
const dueDate = isoDateInRange({ minYear: 1900, maxYear: 2999 }).nullable().optional().describe('YYYY-MM-DD');
const amount = safeInt(0).nullable().optional().describe('integer cents');

export const createMilestoneBody = z.object({ title, description, due_date: dueDate, amount_cents: amount, status: z.enum(STATUSES).optional() });
export const editMilestoneBody = z
  .object({ title: title.optional(), description, due_date: dueDate, amount_cents: amount, status: z.enum(STATUSES).optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'at least one field is required' });

export const milestone = z.object({
  id: uuid,
  fundraiser_id: uuid,
  title: z.string(),
  description: z.string().nullable(),
  due_date: z.string().nullable(),
  amount_cents: z.number().int().nullable(),
  status: z.enum(STATUSES),
  completed_at: z.string().nullable(),
  created_at: z.string(),
}).meta({ id: 'Milestone' });
export const milestoneList = z.array(milestone).describe('by due date (undated last), then creation');
export const wrappedList = z.object({ milestones: milestoneList });
