import type { Actor } from '../../src/http/actor';
import { ApiError } from '../../src/http/errors';
import {
  ORG_ROLE_PERMISSIONS,
  orgPermissionsFor,
  permissionsFor,
  requirePermission,
} from '../../src/http/permissions';
import { requireVerifiedEmail } from '../../src/http/verified-email';

const actor = (over: Partial<Actor> = {}): Actor => ({
  userId: '00000000-0000-4000-8000-000000000001',
  email: 'a@example.test',
  roles: ['user'],
  credential: 'session',
  emailVerified: true,
  impersonatedBy: null,
  apiKeyId: null,
  ...over,
});

function thrown(fn: () => void): ApiError {
  try {
    fn();
  } catch (e) {
    return e as ApiError;
  }
  throw new Error('expected a throw');
}

describe('org role table', () => {
  test('when the viewer role is read then it holds exactly the four read permissions', () => {
    expect([...ORG_ROLE_PERMISSIONS.org_viewer].sort()).toEqual(
      ['org.read', 'org.read_donations', 'org.read_donors', 'org.read_payouts'],
    );
  });

  test('when the admin role is read then it is the viewer set plus the five admin permissions', () => {
    expect([...ORG_ROLE_PERMISSIONS.org_admin].sort()).toEqual(
      [
        ...ORG_ROLE_PERMISSIONS.org_viewer,
        'org.update_settings',
        'org.manage_members',
        'org.manage_dbas',
        'org.manage_locations',
        'org.upload_documents',
      ].sort(),
    );
  });

  test('when the owner role is read then it is the admin set plus children and payouts', () => {
    expect([...ORG_ROLE_PERMISSIONS.org_owner].sort()).toEqual(
      [...ORG_ROLE_PERMISSIONS.org_admin, 'org.manage_children', 'org.manage_payouts'].sort(),
    );
    expect(orgPermissionsFor(null)).toEqual([]);
  });
});

describe('permissionsFor', () => {
  test('when a plain user signs in with a session then they may manage keys but hold no staff power', () => {
    const p = permissionsFor(actor());
    expect(p).toEqual(expect.arrayContaining(['platform.user', 'api_keys.read', 'api_keys.manage']));
    expect(p).not.toContain('platform.staff');
  });

  test('when an admin calls then admin implies staff', () => {
    expect(permissionsFor(actor({ roles: ['user', 'admin'] }))).toEqual(
      expect.arrayContaining(['platform.admin', 'platform.staff', 'platform.user']),
    );
  });

  test('when the credential is an API key or an impersonated session then key management is absent', () => {
    expect(permissionsFor(actor({ credential: 'api_key', apiKeyId: 'k' }))).not.toContain('api_keys.manage');
    expect(permissionsFor(actor({ impersonatedBy: 'staff-id' }))).not.toContain('api_keys.manage');
    expect(permissionsFor(actor({ credential: 'id_token', impersonatedBy: 'staff-id' }))).not.toContain('api_keys.manage');
  });

  test('when a native app signed in with an ID token then key management is allowed (spec refuses only keys and impersonation)', () => {
    expect(permissionsFor(actor({ credential: 'id_token' }))).toContain('api_keys.manage');
  });

  test('when an ambassador calls then platform.ambassador is listed', () => {
    expect(permissionsFor(actor({ roles: ['user', 'ambassador'] }))).toContain('platform.ambassador');
  });
});

describe('requirePermission', () => {
  test('when the permission is missing then 403 with required_permission and the spec message', () => {
    const err = thrown(() => requirePermission(actor(), 'platform.staff'));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(403);
    expect(err.body()).toEqual({
      error: 'Forbidden',
      message: 'Requires permission: platform.staff',
      required_permission: 'platform.staff',
    });
  });

  test('when an org viewer needs an admin permission then 403; an org admin passes', () => {
    const err = thrown(() => requirePermission(actor(), 'org.manage_members', 'org_viewer'));
    expect(err.body()).toMatchObject({ message: 'Requires permission: org.manage_members', required_permission: 'org.manage_members' });
    expect(() => requirePermission(actor(), 'org.manage_members', 'org_admin')).not.toThrow();
    expect(() => requirePermission(actor(), 'org.manage_payouts', 'org_admin')).toThrow(ApiError);
    expect(() => requirePermission(actor(), 'org.manage_payouts', 'org_owner')).not.toThrow();
  });

  test('when a staff member needs staff then it passes', () => {
    expect(() => requirePermission(actor({ roles: ['user', 'staff'] }), 'platform.staff')).not.toThrow();
  });
});

describe('requireVerifiedEmail', () => {
  test('when the email is unverified then 403 EMAIL_NOT_VERIFIED with action verify_email', () => {
    const err = thrown(() => requireVerifiedEmail(actor({ emailVerified: false })));
    expect(err.status).toBe(403);
    expect(err.body()).toEqual({
      error: 'Forbidden',
      message: 'Please verify your email address to continue',
      code: 'EMAIL_NOT_VERIFIED',
      action: 'verify_email',
    });
  });

  test('when the email is verified then it passes', () => {
    expect(() => requireVerifiedEmail(actor())).not.toThrow();
  });
});
