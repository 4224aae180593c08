import { z } from 'zod';

const email = z.email({ message: 'must be a valid email address' }).max(254);
// Upper bounds keep hashing cost bounded; the policy itself is the identity provider's.
const password = z.string().min(1, { message: 'is required' }).max(256);

export const signUpBody = z.object({
  email,
  password,
  name: z.string().trim().max(100).nullable().optional(),
  ambassadorInviteToken: z.string().min(1).max(200).optional(),
  captchaToken: z.string().min(1).max(4096).optional(),
});

export const confirmBody = z.object({ email, code: z.string().min(1).max(32) });

export const signInBody = z.object({ email, password, captchaToken: z.string().min(1).max(4096).optional() });

export const challengeBody = z.object({
  email,
  challengeName: z.literal('NEW_PASSWORD_REQUIRED'),
  session: z.string().min(1).max(8192),
  newPassword: password,
});

export const forgotBody = z.object({ email });

export const resetBody = z.object({ email, code: z.string().min(1).max(32), newPassword: password });

export const changeBody = z.object({ currentPassword: password, newPassword: password });

export const sessionUser = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  avatar: z.string().nullable(),
  role: z.string(),
  email_verified: z.boolean(),
  profile_slug: z.string().nullable(),
}).meta({ id: 'SessionUser' });

export const message = z.object({ message: z.string() });

export const signInAnswer = z.union([
  z.object({ message: z.string(), user: sessionUser, expiresIn: z.number().int() }),
  z.object({ challengeRequired: z.literal(true), challengeName: z.string(), session: z.string() }),
]);

export const meAnswer = z.object({
  user: sessionUser.extend({ is_impersonating: z.boolean().optional(), impersonated_by: z.string().optional() }),
});
