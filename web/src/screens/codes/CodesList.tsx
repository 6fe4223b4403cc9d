import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { usePagedList } from '../../api/paging';
import { DataTable } from '../../components/DataTable';
import { Empty, ErrorState, Loading, PageHeader, Pager } from '../../components/States';

export default function CodesList() {
  const list = usePagedList((cursor) => call(api.GET('/v1/qr-codes', { params: { query: { cursor } } })), '');
  return (
    <>
      <PageHeader title="QR codes" actions={<Link className="button" to="/codes/new">Create a code</Link>} />
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : list.loading ? (
        <Loading />
      ) : list.items.length === 0 ? (
        <Empty>No codes yet.</Empty>
      ) : (
        <DataTable
          caption="QR codes"
          rows={list.items}
          rowId={(c) => c.id}
          columns={[
            { key: 'name', header: 'Name', render: (c) => <Link to={`/codes/${c.id}`}>{c.name}</Link> },
            { key: 'type', header: 'Type', render: (c) => c.type },
          ]}
        />
      )}
      <Pager list={list} label="QR codes" />
    </>
  );
}
