import type { ComponentType } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { AppShell } from './components/AppShell';

/** A screen module loaded on demand: its default export is the screen. */
const screen = (load: () => Promise<{ default: ComponentType }>) => async () => ({ Component: (await load()).default });

/**
 * Every screen of the dashboard (served under /app/). Screens are loaded when first visited, so the first load carries
 * the shell only. Screen authors replace the file a route names; this list stays as it is.
 */
export const routes: RouteObject[] = [
  { path: '/sign-in', lazy: screen(() => import('./screens/sign-in/SignIn')) },
  { path: '/accept', lazy: screen(() => import('./screens/sign-in/Accept')) },
  {
    path: '/',
    element: <AppShell />,
    children: [
      { index: true, element: <Navigate to="/codes" replace /> },
      { path: 'codes', lazy: screen(() => import('./screens/codes/CodesList')) },
      { path: 'codes/new', lazy: screen(() => import('./screens/codes/CodeCreate')) },
      { path: 'codes/:id', lazy: screen(() => import('./screens/codes/CodeDetail')) },
      { path: 'analytics', lazy: screen(() => import('./screens/analytics/Analytics')) },
      { path: 'batches', lazy: screen(() => import('./screens/batches/Batches')) },
      { path: 'batches/:id', lazy: screen(() => import('./screens/batches/BatchDetail')) },
      { path: 'folders', lazy: screen(() => import('./screens/folders/Folders')) },
      { path: 'tags', lazy: screen(() => import('./screens/tags/Tags')) },
      { path: 'templates', lazy: screen(() => import('./screens/templates/Templates')) },
      { path: 'domains', lazy: screen(() => import('./screens/domains/Domains')) },
      { path: 'webhooks', lazy: screen(() => import('./screens/webhooks/Webhooks')) },
      { path: 'webhooks/:id', lazy: screen(() => import('./screens/webhooks/WebhookDetail')) },
      { path: 'events', lazy: screen(() => import('./screens/events/Events')) },
      { path: 'api-keys', lazy: screen(() => import('./screens/api-keys/ApiKeys')) },
      { path: 'members', lazy: screen(() => import('./screens/members/Members')) },
      { path: 'audit', lazy: screen(() => import('./screens/audit/Audit')) },
      { path: 'trash', lazy: screen(() => import('./screens/trash/Trash')) },
      { path: '*', lazy: screen(() => import('./screens/NotFound')) },
    ],
  },
];
