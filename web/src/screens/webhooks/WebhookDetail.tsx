import { ComingSoon } from '../../components/States';

/** Placeholder: the Webhook endpoint screen. */
export default function Screen() {
  return <ComingSoon title="Webhook endpoint" />;
}
