import { ComingSoon } from '../../components/States';

/** Placeholder: the Webhooks screen. */
export default function Screen() {
  return <ComingSoon title="Webhooks" />;
}
