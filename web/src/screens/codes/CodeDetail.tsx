import { lazy, Suspense } from 'react';
import { useParams } from 'react-router';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/paging';
import { ErrorState, Loading, PageHeader } from '../../components/States';
import { hasContentTab, hasRulesTab } from './code-types';

const ContentEditor = lazy(() => import('./ContentEditor'));
const RulesEditor = lazy(() => import('./RulesEditor'));
const CodeAnalytics = lazy(() => import('../analytics/CodeAnalytics'));

/** One code: its settings, design, and (when its type has them) hosted-page content, smart-URL rules and analytics. */
export default function CodeDetail() {
  const { id = '' } = useParams();
  const code = useLoad(() => call(api.GET('/v1/qr-codes/{id}', { params: { path: { id } } })), [id]);
  if (code.loading && !code.data) return <Loading />;
  if (code.error) return <ErrorState error={code.error} onRetry={code.reload} />;
  const c = code.data!;
  return (
    <>
      <PageHeader title={c.name} />
      <Tabs>
        <TabList aria-label="Code sections" className="tabs">
          <Tab id="overview">Overview</Tab>
          {hasContentTab(c.type) && <Tab id="content">Content</Tab>}
          {hasRulesTab(c.type) && <Tab id="rules">Rules</Tab>}
          {c.kind === 'dynamic' && <Tab id="analytics">Analytics</Tab>}
        </TabList>
        <TabPanel id="overview">
          <p>
            {c.type} · {c.kind} · {c.short_url ?? 'static'}
          </p>
        </TabPanel>
        <Suspense fallback={<Loading />}>
          {hasContentTab(c.type) && (
            <TabPanel id="content">
              <ContentEditor codeId={c.id} />
            </TabPanel>
          )}
          {hasRulesTab(c.type) && (
            <TabPanel id="rules">
              <RulesEditor codeId={c.id} />
            </TabPanel>
          )}
          {c.kind === 'dynamic' && (
            <TabPanel id="analytics">
              <CodeAnalytics codeId={c.id} />
            </TabPanel>
          )}
        </Suspense>
      </Tabs>
    </>
  );
}
