import { ComingSoon } from '../../components/States';

/** Placeholder: the API keys screen. */
export default function Screen() {
  return <ComingSoon title="API keys" />;
}
