import { Link } from 'react-router';
import { PageHeader } from '../components/States';

export default function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        There is no such page. <Link to="/codes">Go to your QR codes</Link>.
      </p>
    </>
  );
}
