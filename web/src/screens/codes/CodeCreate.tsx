import { ComingSoon } from '../../components/States';

export default function CodeCreate() {
  return <ComingSoon title="Create a QR code" />;
}
