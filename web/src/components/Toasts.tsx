import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react';

type Kind = 'success' | 'error' | 'info';
interface Toast {
  id: number;
  kind: Kind;
  message: string;
}

const Ctx = createContext<(message: string, kind?: Kind) => void>(() => undefined);

/** `const toast = useToast(); toast('Code paused')` — messages in a polite live region (errors: assertive). */
export function useToast() {
  return useContext(Ctx);
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const seq = useRef(0);
  const dismiss = useCallback((id: number) => setToasts((t) => t.filter((x) => x.id !== id)), []);
  const toast = useCallback(
    (message: string, kind: Kind = 'success') => {
      const id = ++seq.current;
      setToasts((t) => [...t.slice(-3), { id, kind, message }]);
      setTimeout(() => dismiss(id), kind === 'error' ? 10000 : 5000);
    },
    [dismiss],
  );
  return (
    <Ctx.Provider value={toast}>
      {children}
      <div className="toasts">
        <div role="status" aria-live="polite">
          {toasts.filter((t) => t.kind !== 'error').map((t) => (
            <div key={t.id} className={`toast toast-${t.kind}`}>
              <span>{t.message}</span>
              <button type="button" className="link" onClick={() => dismiss(t.id)} aria-label="Dismiss">×</button>
            </div>
          ))}
        </div>
        <div role="alert" aria-live="assertive">
          {toasts.filter((t) => t.kind === 'error').map((t) => (
            <div key={t.id} className="toast toast-error">
              <span>{t.message}</span>
              <button type="button" className="link" onClick={() => dismiss(t.id)} aria-label="Dismiss">×</button>
            </div>
          ))}
        </div>
      </div>
    </Ctx.Provider>
  );
}
