export type CredentialKind = 'session' | 'api_key' | 'id_token';
export type PlatformRole = 'user' | 'ambassador' | 'staff' | 'admin';

/** Who is calling: resolved once per request from cookies, an API key or an ID token. */
export interface Actor {
  userId: string;
  email: string;
  roles: PlatformRole[];
  credential: CredentialKind;
  emailVerified: boolean;
  /** Staff user id while staff view the account on the user's behalf. */
  impersonatedBy: string | null;
  apiKeyId: string | null;
}
