import AnalyticsView from './AnalyticsView';

/** A code's analytics tab (codes/CodeDetail.tsx renders it for dynamic codes). */
export default function CodeAnalytics({ codeId }: { codeId: string }) {
  return <AnalyticsView codeId={codeId} />;
}
