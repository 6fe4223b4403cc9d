import { useState } from 'react';

/**
 * Copies `value` to the clipboard and says so in a polite live region ("Copied"). `label` names what is copied, so
 * several copy buttons on one screen stay distinguishable ("Copy record name", "Copy signing secret").
 */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <span className="copy">
      <button
        type="button"
        className="button secondary"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(value);
            setState('copied');
          } catch {
            setState('failed');
          }
          setTimeout(() => setState('idle'), 4000);
        }}
      >
        {label}
      </button>
      <span role="status" className="hint">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text and copy it' : ''}
      </span>
    </span>
  );
}
