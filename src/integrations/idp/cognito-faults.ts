import type { Request, Response } from 'express';

/**
 * Cognito's JSON protocol as the built-in provider speaks it (POST /local-idp/). The AWS SDK
 * reads an error only from `{ __type, message }` or the `x-amzn-ErrorType` header; any other
 * body becomes an `UnknownError` that the SDK retries. So every failure a Cognito client can
 * see, the rate limiter's included, goes out through `sendCognitoFault`.
 */
export const AMZ_JSON = 'application/x-amz-json-1.1';
export const COGNITO_TARGET_PREFIX = 'AWSCognitoIdentityProviderService.';

/** True for a request made with Cognito's protocol (what the AWS SDK sends). */
export function speaksCognito(req: Request): boolean {
  const target = req.headers['x-amz-target'];
  return typeof target === 'string' && target.startsWith(COGNITO_TARGET_PREFIX);
}

/** Cognito answers its faults with 400 (InternalErrorException 500), as the SDK expects. */
export function sendCognitoFault(res: Response, type: string, message: string, status = 400): void {
  res.setHeader('x-amzn-ErrorType', type);
  res.status(status).type(AMZ_JSON).send(JSON.stringify({ __type: type, message }));
}
