import { ComingSoon } from '../../components/States';

/** Placeholder: the Domains screen. */
export default function Screen() {
  return <ComingSoon title="Domains" />;
}
