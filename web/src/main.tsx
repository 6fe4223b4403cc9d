import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { setSignedOutHandler } from './api/client';
import { SessionProvider } from './components/session-context';
import { ToastProvider } from './components/Toasts';
import { routes } from './routes';
import './styles.css';

const router = createBrowserRouter(routes, { basename: '/app' });

// A 401 that a refresh could not cure: back to sign-in, remembering the page.
setSignedOutHandler(() => {
  const here = router.state.location;
  if (here.pathname !== '/sign-in') void router.navigate(`/sign-in?next=${encodeURIComponent(here.pathname + here.search)}`, { replace: true });
});

// Move focus to the new screen's heading after a navigation, so keyboard and screen-reader users land on it.
router.subscribe((state) => {
  if (state.navigation.state !== 'idle') return;
  requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus({ preventScroll: false }));
});

createRoot(document.getElementById('root')!).render(
  <ToastProvider>
    <SessionProvider>
      <RouterProvider router={router} />
    </SessionProvider>
  </ToastProvider>,
);
