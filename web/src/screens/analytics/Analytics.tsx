import { PageHeader } from '../../components/States';
import AnalyticsView from './AnalyticsView';

/** Workspace analytics: every dynamic code of the workspace together. */
export default function Analytics() {
  return (
    <>
      <PageHeader title="Analytics" />
      <AnalyticsView />
    </>
  );
}
