import { ApiError } from '../../http/errors';
import { plainText } from '../../infra/plain-text';

function invalid(path: string, message: string): ApiError {
  return new ApiError(400, 'Validation failed', `${path}: ${message}`, { details: [{ path, message }] });
}

/** Plain text as stored: markup removed (plainText), 400 when it cannot settle. */
function clean(path: string, input: string): string {
  const text = plainText(input);
  if (text === null) throw invalid(path, 'too many levels of HTML entity encoding');
  return text;
}

/** A title as stored: null or blank (also blank once markup is gone) means no title. */
export function cleanTitle(input: string | null, path = 'body.title'): string | null {
  if (input === null) return null;
  const text = clean(path, input);
  return text === '' ? null : text;
}

/** A body as stored: never empty once markup is gone. */
export function cleanBody(input: string, path = 'body.body'): string {
  const text = clean(path, input);
  if (text === '') throw invalid(path, 'must not be empty');
  return text;
}

/** The text language detection reads: the title adds signal to a short body. */
export const wordsOf = (u: { title: string | null; body: string }) => (u.title ? `${u.title}\n${u.body}` : u.body);
