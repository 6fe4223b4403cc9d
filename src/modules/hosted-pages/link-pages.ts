import type { HostedResponse } from './hosted-response';
import { esc, linkButtons, page } from './layout';
import { mailtoHref } from './mailto';

type Target = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const list = (v: unknown): Target[] => (Array.isArray(v) ? v.filter((x): x is Target => !!x && typeof x === 'object') : []);

export function reviewPage(t: Target): HostedResponse | null {
  const p = t.review_page as Target | undefined;
  const title = str(p?.title);
  if (!p || !title) return null;
  const feedback = str(p.feedback_email);
  const body = `<h1>${esc(title)}</h1>
<p class="muted">Tell others about your experience.</p>
${linkButtons(list(p.links).map((l) => ({ label: l.platform, href: l.url })))}
${feedback ? `<h2>Something not right?</h2>\n${linkButtons([{ label: 'Send us private feedback', href: mailtoHref({ email: feedback, subject: `Feedback: ${title}` }), secondary: true }])}` : ''}`;
  return page(200, title, body);
}

export function linkPage(t: Target): HostedResponse | null {
  const title = str(t.title);
  if (!title) return null;
  const description = str(t.description);
  const body = `<h1>${esc(title)}</h1>
${description ? `<p class="text muted">${esc(description)}</p>` : ''}
${linkButtons(list(t.links).map((l) => ({ label: l.title, href: l.url })))}`;
  return page(200, title, body);
}

function price(p: unknown): string {
  if (typeof p === 'number' && Number.isFinite(p)) return Number.isInteger(p) ? String(p) : p.toFixed(2);
  return typeof p === 'string' ? p : '';
}

export function menuPage(t: Target): HostedResponse | null {
  const title = str(t.title);
  if (!title) return null;
  const sections = list(t.sections)
    .map((s) => {
      const items = list(s.items)
        .map((i) => {
          const desc = str(i.description);
          const cost = price(i.price);
          return `<li class="menu-item"><div><strong>${esc(i.name)}</strong>${desc ? `<p class="muted">${esc(desc)}</p>` : ''}</div>${cost ? `<span class="price">${esc(cost)}</span>` : ''}</li>`;
        })
        .join('\n');
      return `<section>\n<h2>${esc(s.name)}</h2>\n${items ? `<ul class="menu">\n${items}\n</ul>` : '<p class="muted">Nothing here yet.</p>'}\n</section>`;
    })
    .join('\n');
  return page(200, title, `<h1>${esc(title)}</h1>\n${sections}`);
}

/** Shown to user agents that are neither iOS nor Android (those are redirected by the hot path). */
export function appstoresPage(t: Target): HostedResponse | null {
  if (!str(t.ios_url) && !str(t.android_url) && !str(t.fallback_url)) return null;
  const body = `<h1>Get the app</h1>
<p class="muted">Choose your store.</p>
${linkButtons([
  { label: 'Download on the App Store', href: t.ios_url },
  { label: 'Get it on Google Play', href: t.android_url },
  { label: 'Continue on the website', href: t.fallback_url, secondary: true },
])}`;
  return page(200, 'Get the app', body);
}
