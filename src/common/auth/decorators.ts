import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import type { Scope } from './scopes';

export const PUBLIC_ROUTE = 'scanlink:public';
export const DASHBOARD_ROUTE = 'scanlink:dashboard';
export const REQUIRED_SCOPE = 'scanlink:scope';
export const REQUIRED_PLAN_FEATURE = 'scanlink:plan-feature';
export const UNMETERED_ROUTE = 'scanlink:unmetered';
export const SESSION_ROUTE = 'scanlink:session';
export const MANAGERS_ROUTE = 'scanlink:managers';

/** No credentials at all (health, docs). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** Authenticated by a dashboard session token (JWT), not an API key. */
export const DashboardAuth = () =>
  applyDecorators(SetMetadata(DASHBOARD_ROUTE, true), ApiBearerAuth('dashboard_token'));

/** The API key (or the session's role) must carry this scope (403 insufficient_scope); also documents it in Swagger:
 * such a route takes an API key or a dashboard session token. */
export const RequiresScope = (scope: Scope) =>
  applyDecorators(SetMetadata(REQUIRED_SCOPE, scope), ApiBearerAuth('api_key'), ApiBearerAuth('dashboard_token'), ApiExtension('x-required-scope', scope));

/** Beside the scope: a dashboard session must be an owner's or an admin's (an editor's session has `qr:write` for codes,
 * not for the workspace's settings such as custom domains). An API key needs the scope alone. */
export const ManagersOnly = () => SetMetadata(MANAGERS_ROUTE, true);

/** A dashboard session token only (a signed-in member: the user's own record, switching workspace); an API key gets 401. */
export const SessionAuth = () => applyDecorators(SetMetadata(SESSION_ROUTE, true), ApiBearerAuth('dashboard_token'));

/** The workspace's plan must include this feature (403 plan_restricted). */
export const RequiresPlanFeature = (feature: 'batches') => SetMetadata(REQUIRED_PLAN_FEATURE, feature);

/** Authenticated by API key but not counted by the guard: the route counts what it does itself (the MCP endpoint
 * counts each tool call, not each protocol message). */
export const Unmetered = () => SetMetadata(UNMETERED_ROUTE, true);
